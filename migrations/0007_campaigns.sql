CREATE TABLE "campaigns" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"spec" jsonb NOT NULL,
	"overlap" integer NOT NULL,
	"annotators" jsonb NOT NULL,
	"adjudicators" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "campaigns_name_unique" UNIQUE("name"),
	CONSTRAINT "campaigns_overlap_check" CHECK ("campaigns"."overlap" >= 1)
);
--> statement-breakpoint
CREATE TABLE "campaign_answers" (
	"campaign_id" integer NOT NULL,
	"answer_id" integer NOT NULL,
	"rank" integer NOT NULL,
	"reason" text NOT NULL,
	"assigned" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "campaign_answers_campaign_id_answer_id_pk" PRIMARY KEY("campaign_id","answer_id"),
	CONSTRAINT "campaign_answers_reason_check" CHECK ("campaign_answers"."reason" in ('disagreement', 'audit', 'rest')),
	CONSTRAINT "campaign_answers_assigned_check" CHECK ("campaign_answers"."assigned" >= 0)
);
--> statement-breakpoint
CREATE TABLE "campaign_assignments" (
	"campaign_id" integer NOT NULL,
	"answer_id" integer NOT NULL,
	"annotator" text NOT NULL,
	"assigned_at" timestamp with time zone DEFAULT now() NOT NULL,
	"done_at" timestamp with time zone,
	CONSTRAINT "campaign_assignments_campaign_id_answer_id_annotator_pk" PRIMARY KEY("campaign_id","answer_id","annotator")
);
--> statement-breakpoint
CREATE TABLE "adjudications" (
	"id" serial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
	"answer_id" integer NOT NULL,
	"item_key" text NOT NULL,
	"label" text NOT NULL,
	"adjudicator" text NOT NULL,
	"note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "labels" ADD COLUMN "campaign_id" integer;--> statement-breakpoint
ALTER TABLE "campaign_answers" ADD CONSTRAINT "campaign_answers_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_answers" ADD CONSTRAINT "campaign_answers_answer_id_answers_id_fk" FOREIGN KEY ("answer_id") REFERENCES "public"."answers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_assignments" ADD CONSTRAINT "campaign_assignments_campaign_answer_fk" FOREIGN KEY ("campaign_id","answer_id") REFERENCES "public"."campaign_answers"("campaign_id","answer_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "adjudications" ADD CONSTRAINT "adjudications_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "adjudications" ADD CONSTRAINT "adjudications_answer_id_answers_id_fk" FOREIGN KEY ("answer_id") REFERENCES "public"."answers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "labels" ADD CONSTRAINT "labels_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_answers_rank_uq" ON "campaign_answers" USING btree ("campaign_id","rank");--> statement-breakpoint
CREATE INDEX "campaign_answers_answer_idx" ON "campaign_answers" USING btree ("answer_id");--> statement-breakpoint
CREATE INDEX "campaign_assignments_annotator_idx" ON "campaign_assignments" USING btree ("campaign_id","annotator");--> statement-breakpoint
CREATE UNIQUE INDEX "adjudications_campaign_answer_item_uq" ON "adjudications" USING btree ("campaign_id","answer_id","item_key");--> statement-breakpoint
CREATE INDEX "adjudications_answer_idx" ON "adjudications" USING btree ("answer_id");--> statement-breakpoint
CREATE INDEX "labels_campaign_idx" ON "labels" USING btree ("campaign_id");
