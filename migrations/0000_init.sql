CREATE TABLE "answers" (
	"id" serial PRIMARY KEY NOT NULL,
	"run_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"task" text NOT NULL,
	"puzzle_id" integer,
	"rubric_id" integer,
	"text" text,
	"status" text DEFAULT 'ok' NOT NULL,
	"input_tokens" integer,
	"output_tokens" integer,
	"meta" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "answers_task_check" CHECK ("answers"."task" in ('describe', 'assemble', 'describe-then-solve', 'choice')),
	CONSTRAINT "answers_status_check" CHECK ("answers"."status" in ('ok', 'no_answer', 'truncated', 'error'))
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"scopes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "api_keys_prefix_unique" UNIQUE("prefix"),
	CONSTRAINT "api_keys_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "assembly_scores" (
	"id" serial PRIMARY KEY NOT NULL,
	"answer_id" integer NOT NULL,
	"status" text NOT NULL,
	"problems" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"direct" double precision NOT NULL,
	"exact_match" double precision NOT NULL,
	"neighbour" double precision NOT NULL,
	"adjacency" double precision NOT NULL,
	"proximity" double precision NOT NULL,
	"shape_compatibility" double precision,
	"by_position" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "assembly_scores_answer_id_unique" UNIQUE("answer_id")
);
--> statement-breakpoint
CREATE TABLE "grades" (
	"id" serial PRIMARY KEY NOT NULL,
	"answer_id" integer NOT NULL,
	"judge_id" integer NOT NULL,
	"rubric_version_id" integer,
	"prompt_hash" text,
	"status" text NOT NULL,
	"reason" text,
	"completeness" double precision,
	"correctness" double precision,
	"f1" double precision,
	"items" jsonb,
	"claims" jsonb,
	"meta" jsonb,
	"raw_output" text,
	"input_tokens" integer,
	"output_tokens" integer,
	"cache_read_tokens" integer,
	"cache_write_tokens" integer,
	"cost_usd" double precision,
	"latency_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "judge_cache" (
	"key" text PRIMARY KEY NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "judges" (
	"id" serial PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"config" jsonb NOT NULL,
	"config_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "judges_config_hash_unique" UNIQUE("config_hash")
);
--> statement-breakpoint
CREATE TABLE "labels" (
	"id" serial PRIMARY KEY NOT NULL,
	"answer_id" integer NOT NULL,
	"item_key" text DEFAULT '' NOT NULL,
	"annotator" text NOT NULL,
	"kind" text DEFAULT 'human' NOT NULL,
	"label" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "labels_kind_check" CHECK ("labels"."kind" in ('human', 'judge'))
);
--> statement-breakpoint
CREATE TABLE "puzzles" (
	"id" serial PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"rows" integer NOT NULL,
	"cols" integer NOT NULL,
	"layout" jsonb NOT NULL,
	"edges" jsonb,
	"picture_path" text,
	"size_bucket" text,
	"rubric_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "puzzles_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "rubric_items" (
	"id" serial PRIMARY KEY NOT NULL,
	"rubric_version_id" integer NOT NULL,
	"item_key" text NOT NULL,
	"text" text NOT NULL,
	"weight" double precision NOT NULL,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "rubric_items_weight_positive" CHECK ("rubric_items"."weight" > 0)
);
--> statement-breakpoint
CREATE TABLE "rubric_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"rubric_id" integer NOT NULL,
	"version" integer NOT NULL,
	"title" text NOT NULL,
	"reference" text NOT NULL,
	"image" text,
	"truth" jsonb,
	"source" text,
	"content_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rubrics" (
	"id" serial PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rubrics_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"model" text NOT NULL,
	"effort" text,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "runs_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "usage_ledger" (
	"id" serial PRIMARY KEY NOT NULL,
	"call_key" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"judge_id" integer,
	"answer_id" integer,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"cache_read_tokens" integer DEFAULT 0 NOT NULL,
	"cache_write_tokens" integer DEFAULT 0 NOT NULL,
	"cost_usd" double precision,
	"latency_ms" integer,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_ledger_call_key_unique" UNIQUE("call_key")
);
--> statement-breakpoint
ALTER TABLE "answers" ADD CONSTRAINT "answers_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "answers" ADD CONSTRAINT "answers_puzzle_id_puzzles_id_fk" FOREIGN KEY ("puzzle_id") REFERENCES "public"."puzzles"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "answers" ADD CONSTRAINT "answers_rubric_id_rubrics_id_fk" FOREIGN KEY ("rubric_id") REFERENCES "public"."rubrics"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assembly_scores" ADD CONSTRAINT "assembly_scores_answer_id_answers_id_fk" FOREIGN KEY ("answer_id") REFERENCES "public"."answers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grades" ADD CONSTRAINT "grades_answer_id_answers_id_fk" FOREIGN KEY ("answer_id") REFERENCES "public"."answers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grades" ADD CONSTRAINT "grades_judge_id_judges_id_fk" FOREIGN KEY ("judge_id") REFERENCES "public"."judges"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grades" ADD CONSTRAINT "grades_rubric_version_id_rubric_versions_id_fk" FOREIGN KEY ("rubric_version_id") REFERENCES "public"."rubric_versions"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "labels" ADD CONSTRAINT "labels_answer_id_answers_id_fk" FOREIGN KEY ("answer_id") REFERENCES "public"."answers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "puzzles" ADD CONSTRAINT "puzzles_rubric_id_rubrics_id_fk" FOREIGN KEY ("rubric_id") REFERENCES "public"."rubrics"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rubric_items" ADD CONSTRAINT "rubric_items_rubric_version_id_rubric_versions_id_fk" FOREIGN KEY ("rubric_version_id") REFERENCES "public"."rubric_versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rubric_versions" ADD CONSTRAINT "rubric_versions_rubric_id_rubrics_id_fk" FOREIGN KEY ("rubric_id") REFERENCES "public"."rubrics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_ledger" ADD CONSTRAINT "usage_ledger_judge_id_judges_id_fk" FOREIGN KEY ("judge_id") REFERENCES "public"."judges"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_ledger" ADD CONSTRAINT "usage_ledger_answer_id_answers_id_fk" FOREIGN KEY ("answer_id") REFERENCES "public"."answers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "answers_run_external_uq" ON "answers" USING btree ("run_id","external_id");--> statement-breakpoint
CREATE INDEX "answers_puzzle_idx" ON "answers" USING btree ("puzzle_id");--> statement-breakpoint
CREATE INDEX "answers_rubric_idx" ON "answers" USING btree ("rubric_id");--> statement-breakpoint
CREATE INDEX "answers_task_idx" ON "answers" USING btree ("task");--> statement-breakpoint
CREATE UNIQUE INDEX "grades_answer_judge_uq" ON "grades" USING btree ("answer_id","judge_id");--> statement-breakpoint
CREATE INDEX "grades_judge_idx" ON "grades" USING btree ("judge_id");--> statement-breakpoint
CREATE INDEX "grades_rubric_version_idx" ON "grades" USING btree ("rubric_version_id");--> statement-breakpoint
CREATE INDEX "grades_status_idx" ON "grades" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "labels_answer_item_annotator_uq" ON "labels" USING btree ("answer_id","item_key","annotator");--> statement-breakpoint
CREATE INDEX "labels_annotator_idx" ON "labels" USING btree ("annotator");--> statement-breakpoint
CREATE INDEX "puzzles_rubric_idx" ON "puzzles" USING btree ("rubric_id");--> statement-breakpoint
CREATE INDEX "puzzles_size_bucket_idx" ON "puzzles" USING btree ("size_bucket");--> statement-breakpoint
CREATE UNIQUE INDEX "rubric_items_version_key_uq" ON "rubric_items" USING btree ("rubric_version_id","item_key");--> statement-breakpoint
CREATE UNIQUE INDEX "rubric_versions_rubric_version_uq" ON "rubric_versions" USING btree ("rubric_id","version");--> statement-breakpoint
CREATE INDEX "rubric_versions_hash_idx" ON "rubric_versions" USING btree ("rubric_id","content_hash");--> statement-breakpoint
CREATE INDEX "runs_model_idx" ON "runs" USING btree ("model");--> statement-breakpoint
CREATE INDEX "usage_ledger_judge_idx" ON "usage_ledger" USING btree ("judge_id");--> statement-breakpoint
CREATE INDEX "usage_ledger_answer_idx" ON "usage_ledger" USING btree ("answer_id");--> statement-breakpoint
CREATE INDEX "usage_ledger_created_idx" ON "usage_ledger" USING btree ("created_at");