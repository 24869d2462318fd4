CREATE TABLE "workers" (
	"id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"jobs" jsonb DEFAULT '[]'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_ledger" ADD COLUMN "worker_id" text;--> statement-breakpoint
ALTER TABLE "usage_ledger" ADD COLUMN "settled_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "workers_last_seen_idx" ON "workers" USING btree ("last_seen");--> statement-breakpoint
CREATE INDEX "usage_ledger_pending_idx" ON "usage_ledger" USING btree ("worker_id") WHERE "usage_ledger"."status" = 'pending';