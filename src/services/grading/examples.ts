import { and, asc, eq, exists, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { answers, labels, runs } from '../../db/schema.ts';
import { loadJudge } from '../../judges/config.ts';
import { loadPanel } from '../../judges/panel-config.ts';
import { findJudgeRow } from './judge-row.ts';
import { needsGrading } from './needs-grading.ts';
import { openGradingSession } from './panel-session.ts';
import { createGradingSession } from './session.ts';

/**
 * The seed's grades: the bundled example descriptions graded by the lexical judge, and the human-labelled
 * ones by the baseline panel (gradeExamplesWithPanel). Runs after the seed's
 * import on every start and only fills what is missing (needs-grading.ts), so a seed interrupted here
 * is completed by the next start. Each grade is its own upsert (answer × judge): running this twice,
 * or from two processes at once, writes the same rows.
 */

/** The judge the seed grades with: offline and deterministic, whatever keys the server has. */
export const SEED_JUDGE = 'lexical';

/**
 * The baseline panel (judges/panel-lexical.yaml: three lexical judges) the seed grades the human-labelled
 * example descriptions with, so the calibration page shows a panel's reports with no provider key. Only
 * the labelled ones: calibration reads nothing else, it keeps start-up cheap, and the lexical judge stays
 * the judge with most grades (the reports' default judge).
 */
export const SEED_PANEL = 'panel-lexical';

/** Grades the answers of the example runs that need a seed-judge grade; returns how many it graded. */
export async function gradeExamples(database: Database, runNames: string[]): Promise<number> {
  if (runNames.length === 0) return 0;
  const judge = loadJudge(SEED_JUDGE);
  // Read, not registered: a database whose examples are all graded gets no write on start.
  const judgeId = await findJudgeRow(database, judge);
  const todo = await database.db
    .select({ id: answers.id })
    .from(answers)
    .innerJoin(runs, eq(runs.id, answers.runId))
    // With no judges row yet, no answer has its grade (judge_id = null matches nothing).
    .where(and(inArray(runs.name, runNames), needsGrading(judgeId ?? sql`null::int`)))
    .orderBy(asc(answers.id));
  if (todo.length === 0) return 0;
  const session = await createGradingSession(database, { judge, keys: {} });
  // One at a time: PGlite has one connection, and lexical grading costs nothing worth overlapping.
  for (const { id } of todo) await session.grade({ answer: { id } });
  return todo.length;
}

/**
 * Grades with the seed panel the example descriptions some human labelled that still need its grade;
 * returns how many it graded (0, with no write, once they all have one). Sample 1 of each member is
 * stored as that member's grade, so the lexical judge's grade of these answers is rewritten with the
 * same verdicts.
 */
export async function gradeExamplesWithPanel(database: Database, runNames: string[]): Promise<number> {
  if (runNames.length === 0) return 0;
  const panel = loadPanel(SEED_PANEL);
  const judgeId = await findJudgeRow(database, panel);
  const todo = await database.db
    .select({ id: answers.id })
    .from(answers)
    .innerJoin(runs, eq(runs.id, answers.runId))
    .where(
      and(
        inArray(runs.name, runNames),
        exists(database.db.select({ one: sql`1` }).from(labels).where(and(eq(labels.answerId, answers.id), eq(labels.kind, 'human')))),
        needsGrading(judgeId ?? sql`null::int`),
      ),
    )
    .orderBy(asc(answers.id));
  if (todo.length === 0) return 0;
  const session = await openGradingSession(database, { judge: panel, keys: {} });
  for (const { id } of todo) await session.grade({ answer: { id } });
  return todo.length;
}
