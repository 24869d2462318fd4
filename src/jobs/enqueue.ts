import type PgBoss from 'pg-boss';
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.ts';
import { answers, gradingRuns } from '../db/schema.ts';
import { GRADE_QUEUE, gradeJobId, transactionExecutor } from './boss.ts';

/**
 * Enqueueing a grading run: one job per answer with text that has no final grade from the judge.
 * Job ids are derived from (judge config hash, answer), so enqueueing twice — a second `assay run`,
 * a retried HTTP request, two users at once — never makes a second job for the same answer.
 */

export interface GradeJobData {
  gradingRunId: number;
  answerId: number;
}

export interface EnqueueTarget {
  runId: number;
  judgeId: number;
  judgeRef: string;
  configHash: string;
}

export interface EnqueueResult {
  gradingRunId: number;
  /** Answers with text in the run. */
  total: number;
  /** Answers that already had a final grade from this judge (no job). */
  alreadyGraded: number;
  /** Jobs for the rest (new, or already waiting: the same id is never queued twice). */
  jobs: number;
  jobIds: string[];
}

/** Answers of the run that still need a grade from the judge (none, or a provider_error one). */
async function pendingAnswers(tx: Queryable, t: EnqueueTarget): Promise<{ total: number; pending: number[] }> {
  const rows = await tx
    .select({ id: answers.id, final: sql<boolean>`exists (select 1 from grades g where g.answer_id = "answers"."id" and g.judge_id = ${t.judgeId} and g.status <> 'provider_error')` })
    .from(answers)
    .where(and(eq(answers.runId, t.runId), sql`coalesce(btrim(${answers.text}), '') <> ''`))
    .orderBy(answers.id);
  return { total: rows.length, pending: rows.filter((r) => !r.final).map((r) => r.id) };
}

/**
 * Writes the grading_runs row and the jobs on `tx`: when the caller's transaction rolls back, no job
 * exists. pg-boss writes through an executor bound to that same transaction.
 */
export async function enqueueInTransaction(tx: Queryable, boss: PgBoss, t: EnqueueTarget): Promise<EnqueueResult> {
  const { total, pending } = await pendingAnswers(tx, t);
  const [gr] = await tx
    .insert(gradingRuns)
    .values({ runId: t.runId, judgeId: t.judgeId, judgeRef: t.judgeRef, total })
    .onConflictDoUpdate({ target: [gradingRuns.runId, gradingRuns.judgeId], set: { judgeRef: t.judgeRef, total, status: 'active', updatedAt: new Date() } })
    .returning({ id: gradingRuns.id });
  const gradingRunId = gr!.id;
  const jobIds: string[] = [];
  const executor = transactionExecutor(tx);
  // One statement per thousand jobs keeps the JSON argument small on both engines.
  for (let i = 0; i < pending.length; i += 1000) {
    const chunk = pending.slice(i, i + 1000).map((answerId) => {
      const id = gradeJobId(t.configHash, answerId);
      jobIds.push(id);
      return { id, name: GRADE_QUEUE, data: { gradingRunId, answerId } satisfies GradeJobData };
    });
    await boss.insert(chunk, { db: executor } as PgBoss.InsertOptions);
  }
  return { gradingRunId, total, alreadyGraded: total - pending.length, jobs: pending.length, jobIds };
}

/**
 * Jobs of an earlier enqueue that ended without a final grade come back: cancelled ones resume,
 * failed (dead-lettered) ones get one more round of retries, and a completed job whose grade is gone
 * is replaced. Runs after the enqueue transaction committed; each step is idempotent.
 */
export async function reviveJobs(database: Database, boss: PgBoss, jobIds: string[]): Promise<{ resumed: number; retried: number; replaced: number }> {
  if (jobIds.length === 0) return { resumed: 0, retried: 0, replaced: 0 };
  const r = await database.execute(`select id::text as id, state::text as state, data from pgboss.job where name = $1 and id::text = any($2::text[])`, [GRADE_QUEUE, jobIds]);
  const byState = (s: string) => r.rows.filter((x) => x.state === s);
  const cancelled = byState('cancelled').map((x) => x.id as string);
  const failed = byState('failed').map((x) => x.id as string);
  const completed = byState('completed');
  if (cancelled.length) await boss.resume(GRADE_QUEUE, cancelled);
  if (failed.length) await boss.retry(GRADE_QUEUE, failed);
  if (completed.length) {
    await boss.deleteJob(GRADE_QUEUE, completed.map((x) => x.id as string));
    await boss.insert(completed.map((x) => ({ id: x.id as string, name: GRADE_QUEUE, data: x.data as GradeJobData })));
  }
  return { resumed: cancelled.length, retried: failed.length, replaced: completed.length };
}
