import type { Database } from '../db/client.ts';
import type { ImportFile } from './import-parse.ts';
import { importLabels } from './import-labels.ts';

/**
 * The example human labels of the seed (the lexical grades are services/grading/examples.ts). Runs
 * after the import transaction on every start and imports the labels file only when it is missing,
 * as one all-or-nothing upsert: running it twice, or from two processes at once, writes the same rows.
 */

/** Label rows' runs and annotators, to tell "examples present, labels missing" from a foreign database. */
function labelScope(file: ImportFile): { runs: string[]; annotators: string[] } {
  const rows = file.content.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { run?: string; annotator?: string; rater?: string });
  return {
    runs: [...new Set(rows.flatMap((r) => (r.run ? [r.run] : [])))],
    annotators: [...new Set(rows.flatMap((r) => [r.annotator ?? r.rater ?? '']).filter(Boolean))],
  };
}

/**
 * Imports the example labels when every run they label exists and none of the example annotators has
 * labelled an answer of those runs yet; returns how many labels it wrote.
 */
export async function labelExamples(database: Database, file: ImportFile): Promise<number> {
  const scope = labelScope(file);
  const r = await database.execute(
    `select (select count(*)::int from runs where name = any($1::text[])) as runs,
            (select count(*)::int from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id
              where r.name = any($1::text[]) and l.annotator = any($2::text[])) as labels`,
    [scope.runs, scope.annotators],
  );
  const row = r.rows[0] as { runs: number; labels: number };
  if (Number(row.runs) < scope.runs.length || Number(row.labels) > 0) return 0;
  // The seed imports the example rubrics and their labels together: the labels are of the current versions.
  const done = await importLabels(database, file, { currentVersion: true });
  return done.inserted + done.replaced;
}
