CREATE TABLE "grading_runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"judge_id" integer NOT NULL,
	"judge_ref" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"rpm" double precision,
	"tpm" double precision,
	"requests" double precision DEFAULT 0 NOT NULL,
	"tokens" double precision DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cooldown_until" timestamp with time zone DEFAULT now() NOT NULL,
	"throttled" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "grading_runs" ADD CONSTRAINT "grading_runs_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grading_runs" ADD CONSTRAINT "grading_runs_judge_id_judges_id_fk" FOREIGN KEY ("judge_id") REFERENCES "public"."judges"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "grading_runs_run_judge_uq" ON "grading_runs" USING btree ("run_id","judge_id");