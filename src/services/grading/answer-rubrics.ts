import type { Database } from '../../db/client.ts';
import type { VersionedRow } from './label-versions.ts';
import { answerRubricIdSql } from './rubric-scope.ts';

/**
 * The rubric (slug) of each answer, as the reports scope it (rubric-scope.ts): its own, else its puzzle's.
 * Calibration rows carry it because an item id names an item of one rubric only: the bundled ImageInWords
 * rubrics share ids ('sky' in ~25 of them), and a per-item table keyed by the id pooled them silently.
 */
export async function answerRubrics(database: Database, answerIds: readonly number[]): Promise<Map<number, string>> {
  if (answerIds.length === 0) return new Map();
  const r = await database.execute(
    `select coalesce(json_agg(json_build_array(a.id, rb.slug)), '[]')::text as j
       from answers a join rubrics rb on rb.id = ${answerRubricIdSql('a')}
      where a.id = any($1::int[])`,
    [[...new Set(answerIds)]],
  );
  return new Map(JSON.parse(String(r.rows[0]!.j)) as Array<[number, string]>);
}

/** Names each row's rubric (rows of an answer without one stay without): in place, the rows are the caller's own. */
export async function nameRubrics(database: Database, rows: readonly VersionedRow[]): Promise<void> {
  const rubrics = await answerRubrics(database, rows.map((v) => v.answerId));
  for (const v of rows) {
    const rubric = rubrics.get(v.answerId);
    if (rubric !== undefined) v.row.rubric = rubric;
  }
}
