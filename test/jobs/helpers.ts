import { fileURLToPath } from 'node:url';
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client.ts';
import { answers, runs } from '../../src/db/schema.ts';
import { storeRubric } from '../../src/services/rubrics.ts';
import { farmyard, fullVerdicts } from '../judges/harness.ts';
import type { Step } from '../fake-provider/server.ts';

export const JUDGE_FILE = fileURLToPath(new URL('./fixtures/fake-claude.yaml', import.meta.url));
export const VERDICTS: Step = { kind: 'verdicts', output: fullVerdicts() };
/** Fast queue settings for tests: stalled jobs expire after 2 s, maintenance every second. */
export const TEST_BOSS = { expireInSeconds: 60, maintenanceIntervalSeconds: 1, retryLimit: 2, retryDelay: 1 };
export const quietEngine = { sleep: async () => {} };

/** A run of `n` describe answers (distinct texts, so no two share a cached verdict) on the farmyard rubric. */
export async function seedRun(database: Database, name: string, n: number, text = (i: number) => `${name} answer ${i}: a farmyard with a red barn, ${i} hens and a tractor.`): Promise<{ runId: number; answerIds: number[] }> {
  const { rubricId } = await database.db.transaction((tx) => storeRubric(tx, farmyard));
  const [run] = await database.db.insert(runs).values({ name, model: 'model-x' }).returning({ id: runs.id });
  const rows = Array.from({ length: n }, (_, i) => ({ runId: run!.id, externalId: `a${i}`, task: 'describe' as const, rubricId, text: text(i) }));
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const r = await database.db.insert(answers).values(rows.slice(i, i + 500)).returning({ id: answers.id });
    ids.push(...r.map((x) => x.id));
  }
  return { runId: run!.id, answerIds: ids };
}

export async function count(database: Database, query: string, params: unknown[] = []): Promise<number> {
  const r = await database.execute(query, params);
  return Number(r.rows[0]?.n ?? 0);
}

/** Grades per answer of a run for any judge: every value must be exactly 1. */
export async function gradesPerAnswer(database: Database, runId: number): Promise<number[]> {
  const r = await database.db
    .select({ n: sql<number>`(select count(*)::int from grades g where g.answer_id = "answers"."id")` })
    .from(answers)
    .where(eq(answers.runId, runId));
  return r.map((x) => Number(x.n));
}

/** Queue settings of the crash tests: a stalled job expires after 4 s, maintenance every second. */
export const EXPIRE = { expireInSeconds: 4, maintenanceIntervalSeconds: 1, retryLimit: 3, retryDelay: 1 };

export async function until(f: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
