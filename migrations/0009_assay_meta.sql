-- Facts about the database itself, one row per key. 'seed': the digest of the bundled examples (rubrics/
-- and judges/) whose seed is complete here, so a restart on the same examples skips reading them again.
CREATE TABLE IF NOT EXISTS "assay_meta" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
