import type { Database } from '../db/client.ts';

/**
 * What an annotator has left to label: description answers (describe, describe-then-solve) without
 * any label from them yet, oldest first. The annotation pages and the annotate-scoped API read it.
 */
export interface QueueEntry {
  answerId: number;
  answer: string;
  run: string;
  model: string;
  rubric: string | null;
  text: string | null;
}

/**
 * An answer a person can annotate: a description (describe, or the description half of
 * describe-then-solve; assemblies, choices are scored, not annotated) with text to read (not blank:
 * no_answer rows have none) and a rubric whose latest version has items to give verdicts on. The queue
 * lists only these: anything else would open a workspace with nothing to label.
 */
export const ANNOTATABLE = `a.task in ('describe', 'describe-then-solve')
      and a.text ~ '\\S'
      and exists (select 1 from rubric_items ri
                   where ri.rubric_version_id = (select rv.id from rubric_versions rv where rv.rubric_id = a.rubric_id order by rv.version desc limit 1))`;

export async function annotationQueue(
  database: Database,
  opts: { annotator: string; run?: string; limit?: number; offset?: number },
): Promise<{ total: number; items: QueueEntry[] }> {
  const where = `${ANNOTATABLE}
      and not exists (select 1 from labels l where l.answer_id = a.id and l.annotator = $1)
      and ($2::text is null or r.name = $2)`;
  const from = `from answers a join runs r on r.id = a.run_id left join rubrics rb on rb.id = a.rubric_id where ${where}`;
  const params = [opts.annotator, opts.run ?? null];
  const total = Number((await database.execute(`select count(*)::int as n ${from}`, params)).rows[0]?.n ?? 0);
  const rows = await database.execute(
    `select a.id as "answerId", a.external_id as answer, r.name as run, r.model, rb.slug as rubric, a.text
       ${from} order by a.id limit $3 offset $4`,
    [...params, opts.limit ?? 50, opts.offset ?? 0],
  );
  return { total, items: rows.rows as QueueEntry[] };
}
