import type { Database } from '../db/client.ts';
import { loadJudge } from '../judges/config.ts';
import type { ImportFile } from './import-parse.ts';
import { createGradingSession } from './grading.ts';
import { importLabels } from './import-labels.ts';

/**
 * The second half of seeding: the lexical judge's grades of the example descriptions and the example
 * human labels. It runs after the import transaction on every start and only fills what is missing,
 * so a seed interrupted here (killed process, lost connection) is completed by the next start instead
 * of leaving a half-graded database for good. Each grade is its own upsert (answer × judge), and the
 * labels file is one all-or-nothing upsert: running this twice, or from two processes at once, writes
 * the same rows.
 */

/** The judge the seed grades with: offline and deterministic, whatever keys the server has. */
export const SEED_JUDGE = 'lexical';

/** Example description answers (runs named by the examples) with text and a rubric but no grade by the seed judge. */
async function ungraded(database: Database, runNames: string[], configHash: string): Promise<number[]> {
  if (runNames.length === 0) return [];
  const r = await database.execute(
    `select a.id from answers a join runs r on r.id = a.run_id
      where r.name = any($1::text[]) and a.task in ('describe', 'describe-then-solve') and a.status = 'ok'
        and a.rubric_id is not null and coalesce(btrim(a.text), '') <> ''
        and not exists (select 1 from grades g join judges j on j.id = g.judge_id where g.answer_id = a.id and j.config_hash = $2)
      order by a.id`,
    [runNames, configHash],
  );
  return r.rows.map((x) => Number(x.id));
}

/** Grades the example descriptions that have no seed-judge grade yet; returns how many it graded. */
export async function gradeExamples(database: Database, runNames: string[]): Promise<number> {
  const judge = loadJudge(SEED_JUDGE);
  const ids = await ungraded(database, runNames, judge.configHash);
  if (ids.length === 0) return 0;
  const session = await createGradingSession(database, { judge, keys: {} });
  // One at a time: PGlite has one connection, and lexical grading costs nothing worth overlapping.
  for (const id of ids) await session.grade({ answer: { id } });
  return ids.length;
}

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
  const done = await importLabels(database, file);
  return done.inserted + done.replaced;
}
