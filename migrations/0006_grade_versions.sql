DROP INDEX "grades_answer_judge_uq";--> statement-breakpoint
ALTER TABLE "grades" ADD CONSTRAINT "grades_answer_judge_version_uq" UNIQUE NULLS NOT DISTINCT("answer_id","judge_id","rubric_version_id");--> statement-breakpoint
CREATE INDEX "grades_answer_judge_idx" ON "grades" USING btree ("answer_id","judge_id","created_at");
