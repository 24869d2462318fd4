import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { answers, runs } from '../../db/schema.ts';
import { loadJudge } from '../../judges/config.ts';
import { findJudgeRow } from './judge-row.ts';
import { needsGrading } from './needs-grading.ts';
import { createGradingSession } from './session.ts';

/**
 * The seed's grades: the bundled example descriptions graded by the lexical judge. Runs after the seed's
 * import on every start and only fills what is missing (needs-grading.ts), so a seed interrupted here
 * is completed by the next start. Each grade is its own upsert (answer × judge): running this twice,
 * or from two processes at once, writes the same rows.
 */

/** The judge the seed grades with: offline and deterministic, whatever keys the server has. */
export const SEED_JUDGE = 'lexical';

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
