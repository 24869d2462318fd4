import type PgBoss from 'pg-boss';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { gradingRuns, judges, runs } from '../db/schema.ts';
import { notFound } from '../domain/errors.ts';
import { GRADE_QUEUE } from '../jobs/boss.ts';
import { enqueueInTransaction, type EnqueueResult, reviveJobs } from '../jobs/enqueue.ts';
import { type Limits, limitKey, setLimits } from '../jobs/rate-limit.ts';
import { loadJudge } from '../judges/config.ts';
import { ensureJudgeRow } from './grading.ts';

/**
 * Grading a whole run with a judge through the durable queue (`assay run`, POST /runs/{id}/grade):
 * the grading_runs row and one job per ungraded answer are written in one transaction.
 */

export interface GradeRunRequest {
  /** Run name or numeric id. */
  run: string | number;
  /** Judge id in judges/ or a judge file path (workers load it by the same reference). */
  judge: string;
  /** Shared provider limits to apply from now on (all workers read them from the database). */
  limits?: Limits;
}

/** The run and judge a grading result or progress report is about. */
export interface RunAndJudge {
  run: { id: number; name: string };
  judge: { id: number; slug: string };
}

export interface GradeRunResult extends EnqueueResult, RunAndJudge {
  judge: { id: number; slug: string; configHash: string };
  resumed: number;
  retried: number;
}


export async function findRun(database: Database, ref: string | number): Promise<{ id: number; name: string }> {
  const byId = typeof ref === 'number' || /^\d+$/.test(ref);
  const rows = await database.db
    .select({ id: runs.id, name: runs.name })
    .from(runs)
    .where(byId ? sql`${runs.id} = ${Number(ref)} or ${runs.name} = ${String(ref)}` : eq(runs.name, String(ref)));
  const exact = rows.find((r) => r.name === String(ref)) ?? rows[0];
  if (!exact) throw notFound(`run '${ref}' not found`);
  return exact;
}

/** The judges row, written ahead of the first grade because the grading_runs row and its jobs refer to it. */
export const judgeRowFor = ensureJudgeRow;

export async function enqueueRunGrading(database: Database, boss: PgBoss, req: GradeRunRequest): Promise<GradeRunResult> {
  const judge = loadJudge(req.judge);
  const run = await findRun(database, req.run);
  const judgeId = await judgeRowFor(database, judge);
  if (req.limits && (req.limits.rpm != null || req.limits.tpm != null)) await setLimits(database, limitKey(judge.config.provider, judge.config.model), req.limits);
  const target = { runId: run.id, judgeId, judgeRef: req.judge, configHash: judge.configHash };
  const res = await database.db.transaction((tx) => enqueueInTransaction(tx, boss, target));
  const revived = await reviveJobs(database, boss, res.jobIds);
  return { ...res, run, judge: { id: judgeId, slug: judge.config.id, configHash: judge.configHash }, resumed: revived.resumed, retried: revived.retried };
}

/** Cancels the run's waiting jobs (jobs in flight finish); `assay run` again resumes them. */
export async function cancelRunGrading(database: Database, boss: PgBoss, q: { run: string | number; judge?: string }): Promise<{ cancelled: number }> {
  const run = await findRun(database, q.run);
  const where = [eq(gradingRuns.runId, run.id)];
  if (q.judge) {
    // Looked up, not registered: cancelling for a judge that never graded the run writes nothing.
    const judge = loadJudge(q.judge);
    const [row] = await database.db.select({ id: judges.id }).from(judges).where(eq(judges.configHash, judge.configHash));
    if (!row) return { cancelled: 0 };
    where.push(eq(gradingRuns.judgeId, row.id));
  }
  const grs = await database.db.select({ id: gradingRuns.id }).from(gradingRuns).where(and(...where));
  if (grs.length === 0) return { cancelled: 0 };
  const ids = grs.map((g) => g.id);
  await database.db.update(gradingRuns).set({ status: 'cancelled', updatedAt: new Date() }).where(inArray(gradingRuns.id, ids));
  const r = await database.execute(
    `select id::text as id from pgboss.job where name = $1 and state < 'active' and (data->>'gradingRunId')::int = any($2::int[])`,
    [GRADE_QUEUE, ids],
  );
  const jobIds = r.rows.map((x) => x.id as string);
  if (jobIds.length) await boss.cancel(GRADE_QUEUE, jobIds);
  return { cancelled: jobIds.length };
}
