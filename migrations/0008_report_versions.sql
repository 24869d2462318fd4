-- Per-table data versions for the report cache (src/services/report-cache.ts). Every statement that
-- writes a table (INSERT, UPDATE, DELETE, TRUNCATE) moves that table's sequence, so a cached report is
-- recomputed only after a write to a table it reads. Sequences, not a counter row: nextval never waits
-- for another transaction and takes no row lock, so concurrent writers neither queue nor deadlock. It is
-- not transactional (it moves before the writer commits), so the writer also holds a shared advisory lock
-- on (1095979865, the sequence's oid) until it ends: a reader that finds such a lock held knows a write to
-- that table is not visible yet and keys its result to the holder (see report-cache.ts, "Versions").
CREATE FUNCTION "assay_bump_data_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(1095979865, TG_ARGV[0]::regclass::oid::int);
  PERFORM nextval(TG_ARGV[0]::regclass);
  RETURN NULL;
END $$;
--> statement-breakpoint
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['rubrics', 'rubric_versions', 'rubric_items', 'puzzles', 'runs', 'answers', 'judges', 'grades',
    'assembly_scores', 'labels', 'api_keys', 'judge_cache', 'usage_ledger', 'grading_runs', 'rate_limits', 'workers',
    'provider_batches', 'campaigns', 'campaign_answers', 'campaign_assignments', 'adjudications'] LOOP
    EXECUTE format('CREATE SEQUENCE %I', 'data_version_' || t);
    EXECUTE format('CREATE TRIGGER "data_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION assay_bump_data_version(%L)', t, 'data_version_' || t);
  END LOOP;
END $$;
