-- Facts about the database itself, one row per key. 'seed': the digest of the bundled examples (rubrics/
-- and judges/) whose seed is complete here, so a restart on the same examples skips reading them again.
CREATE TABLE IF NOT EXISTS "assay_meta" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Like every table (migration 0008): its writes move its own data version, which no report reads.
CREATE SEQUENCE "data_version_assay_meta";
--> statement-breakpoint
CREATE TRIGGER "data_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "assay_meta" FOR EACH STATEMENT EXECUTE FUNCTION assay_bump_data_version('data_version_assay_meta');
