ALTER TABLE "labels" ADD COLUMN "rubric_version_id" integer;--> statement-breakpoint
ALTER TABLE "labels" ADD CONSTRAINT "labels_rubric_version_id_rubric_versions_id_fk" FOREIGN KEY ("rubric_version_id") REFERENCES "public"."rubric_versions"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
UPDATE "labels" l SET "rubric_version_id" = cur.version_id
  FROM (SELECT l2.id AS label_id,
               (SELECT rv.id FROM "answers" a JOIN "rubric_versions" rv ON rv.rubric_id = a.rubric_id
                 WHERE a.id = l2.answer_id AND rv.created_at <= l2.created_at
                 ORDER BY rv.version DESC LIMIT 1) AS version_id
          FROM "labels" l2) cur
 WHERE cur.label_id = l.id AND cur.version_id IS NOT NULL AND l.rubric_version_id IS NULL
   AND (l.item_key = '' OR l.item_key LIKE 'answer:%' OR l.item_key LIKE 'claim:%'
        OR EXISTS (SELECT 1 FROM "rubric_items" ri WHERE ri.rubric_version_id = cur.version_id AND ri.item_key = l.item_key));--> statement-breakpoint
DROP INDEX "labels_answer_item_annotator_uq";--> statement-breakpoint
ALTER TABLE "labels" ADD CONSTRAINT "labels_answer_item_annotator_campaign_uq" UNIQUE NULLS NOT DISTINCT("answer_id","item_key","annotator","campaign_id");--> statement-breakpoint
CREATE INDEX "labels_rubric_version_idx" ON "labels" USING btree ("rubric_version_id");
