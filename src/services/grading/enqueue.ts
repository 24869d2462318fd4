import type PgBoss from 'pg-boss';
import type { Database, Queryable } from '../../db/client.ts';
import { gradingRuns } from '../../db/schema.ts';
import { AssayError } from '../../domain/errors.ts';
import { RENEW_KEEP_UNTIL } from '../../jobs/archive.ts';
import { GRADE_QUEUE, gradeJobId, type GradeJobData, transactionExecutor } from '../../jobs/boss.ts';
import { answersNeedingGrade, runSelection, type SkippedCounts } from './needs-grading.ts';

/**
 * Enqueueing a grading run: one job per answer that needs a grade from the judge (needs-grading.ts).
 * Job ids are derived from (judge config hash, answer), so enqueueing twice — a second `assay run`,
 * a retried HTTP request, two users at once — never makes a second job for the same answer.
 */

export interface EnqueueTarget {
  runId: number;
  judgeId: number;
  judgeRef: string;
  configHash: string;
}

export interface EnqueueResult {
  gradingRunId: number;
  /** Answers of the run a judge grades (needs-grading.ts). */
  total: number;
  /** Answers of the run left out, by reason: not in total, no job. */
  skipped: SkippedCounts;
  /** Answers that already had a final grade from this judge (no job). */
  alreadyGraded: number;
  /** Jobs for the rest (new, or already waiting: the same id is never queued twice). */
  jobs: number;
  jobIds: string[];
}

/**
 * Writes the grading_runs row and the jobs on `tx`: when the caller's transaction rolls back, no job
 * exists. pg-boss writes through an executor bound to that same transaction.
 */
export async function enqueueInTransaction(tx: Queryable, boss: PgBoss, t: EnqueueTarget): Promise<EnqueueResult> {
  const { total, skipped } = await runSelection(tx, t.runId);
  const pending = await answersNeedingGrade(tx, t.runId, t.judgeId);
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
  // pg-boss inserts with ON CONFLICT DO NOTHING, joined to its queue row, and reports nothing: every job
  // is checked to be there (new, or the earlier one of the same id), or the transaction rolls back.
  if (jobIds.length) {
    const r = await executor.executeSql(`select count(*)::int as n from pgboss.job where name = $1 and id = any($2::uuid[])`, [GRADE_QUEUE, jobIds]);
    const n = Number(r.rows[0]?.n ?? 0);
    if (n !== jobIds.length) throw new AssayError('unavailable', `the grading queue took ${n} of ${jobIds.length} jobs; nothing enqueued`);
  }
  return { gradingRunId, total, skipped, alreadyGraded: total - pending.length, jobs: pending.length, jobIds };
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
  if (cancelled.length || failed.length) await database.execute(RENEW_KEEP_UNTIL, [GRADE_QUEUE, [...cancelled, ...failed]]);
  if (completed.length) {
    // Replaced in one transaction: a failure between the delete and the insert would leave the answer with no job.
    await database.db.transaction(async (tx) => {
      const db = transactionExecutor(tx);
      await boss.deleteJob(GRADE_QUEUE, completed.map((x) => x.id as string), { db } as PgBoss.ConnectionOptions);
      await boss.insert(completed.map((x) => ({ id: x.id as string, name: GRADE_QUEUE, data: x.data as GradeJobData })), { db } as PgBoss.InsertOptions);
    });
  }
  return { resumed: cancelled.length, retried: failed.length, replaced: completed.length };
}
