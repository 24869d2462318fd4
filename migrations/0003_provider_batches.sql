CREATE TABLE "provider_batches" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"judge_id" integer NOT NULL,
	"provider" text NOT NULL,
	"state" text DEFAULT 'intent' NOT NULL,
	"provider_batch_id" text,
	"custom_ids" jsonb NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "provider_batches_state_check" CHECK ("provider_batches"."state" in ('intent', 'submitted', 'ended', 'reconciled'))
);
--> statement-breakpoint
ALTER TABLE "provider_batches" ADD CONSTRAINT "provider_batches_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_batches" ADD CONSTRAINT "provider_batches_judge_id_judges_id_fk" FOREIGN KEY ("judge_id") REFERENCES "public"."judges"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "provider_batches_run_judge_idx" ON "provider_batches" USING btree ("run_id","judge_id");