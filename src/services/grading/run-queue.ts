import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { gradingRuns } from '../../db/schema.ts';
import { GRADE_QUEUE, transactionExecutor } from '../../jobs/boss.ts';
import { type Limits, limitKey, limitProblem, setLimits } from '../../jobs/rate-limit.ts';
import { badInput } from '../../domain/errors.ts';
import { endpointOf, type ProviderKeys } from '../../judges/adapters/index.ts';
import { isLoadedPanel, loadJudgeOrPanel } from '../../judges/panel-config.ts';
import { enqueueInTransaction, type EnqueueResult, reviveJobs } from './enqueue.ts';
import { resolveJudgeExamples } from './judge-examples.ts';
import { asJudge, ensureJudgeRow, findJudgeRow, judgesOf, refuseChangedTemplates } from './judge-row.ts';
import { panelMemberJudges } from './panel-session.ts';
import type { GradingQueue } from './queue.ts';
import { findRun } from './run-ref.ts';

/**
 * Grading a whole run with a judge through the durable queue (`assay run`, POST /runs/{id}/grade):
 * the grading_runs row and one job per answer that needs grading are written in one transaction.
 */

export interface GradeRunRequest {
  /** Run name or numeric id. */
  run: string | number;
  /** Judge id in judges/ or a judge file path (workers load it by the same reference). */
  judge: string;
  /** 'network': a judge id in judges/ only — a request must never name a file. Default 'local'. */
  from?: 'network' | 'local';
  /** Shared provider limits to apply from now on (all workers read them from the database). */
  limits?: Limits;
}

/** The run and judge a grading result or progress report is about. */
export interface RunAndJudge {
  run: { id: number; name: string };
  judge: { id: number; slug: string };
}

export interface GradeRunResult extends Omit<EnqueueResult, 'jobIds'>, RunAndJudge {
  judge: { id: number; slug: string; configHash: string };
  resumed: number;
  retried: number;
}

/** A judge or a panel (a panel of panels is refused here, before anything is written). */
const judgeFor = (ref: string, from: 'network' | 'local' = 'local') => {
  const judge = loadJudgeOrPanel(ref, { byIdOnly: from === 'network' });
  if (isLoadedPanel(judge)) panelMemberJudges(judge);
  return judge;
};

/**
 * Checks a judge reference before anything is opened: an unknown judge or a bad file is bad input. With
 * `keys` (the process will make the calls itself), a remote judge or panel member whose key is unset is
 * bad input too, rather than every job failing after its retries. With `limits`, limits no worker would
 * apply (enqueueRunGrading's limitsFor) are refused too.
 */
export function checkJudgeRef(ref: string, keys?: ProviderKeys, limits?: Limits): void {
  const judge = judgeFor(ref);
  if (keys) requireKeys(judge, keys);
  if (limits && (limits.rpm !== undefined || limits.tpm !== undefined)) limitsFor(judge, limits);
}

/** A judge (each member of a panel) called over the network needs its key: bad input naming the variable. */
function requireKeys(judge: ReturnType<typeof judgeFor>, keys: ProviderKeys): void {
  for (const { judge: j, who } of judgesOf(judge)) if (REMOTE.has(j.config.provider)) asJudge(who, j, () => endpointOf(j, keys));
}

/**
 * What enqueueRunGrading refuses before it writes or sends anything, checked without writing: the judge
 * (its file, a panel's members, an anchored judge's examples), the run, a prompt template changed since
 * the configuration graded; with `keys`, a remote judge (or panel member) whose key is unset. `assay judge
 * compare --grade` checks both judges so before grading either.
 */
export async function checkRunGrading(database: Database, req: Pick<GradeRunRequest, 'run' | 'judge' | 'from'>, keys?: ProviderKeys): Promise<void> {
  await checkedRunGrading(database, req, keys);
}

/** checkRunGrading's checks, in its order, with the judge and run they resolved (enqueueRunGrading's first step). */
async function checkedRunGrading(database: Database, req: Pick<GradeRunRequest, 'run' | 'judge' | 'from'>, keys?: ProviderKeys) {
  // An anchored judge's examples are part of its config hash (and refused here, before any write, when bad).
  const judge = await resolveJudgeExamples(database, judgeFor(req.judge, req.from));
  const run = await findRun(database, req.run);
  await refuseChangedTemplates(database, judge);
  // With the keys the grading worker will have: a judge it could never open (its key unset) is refused too.
  if (keys) requireKeys(judge, keys);
  return { judge, run };
}

/** Providers called over the network, with an endpoint and a key (adapters/index.ts). */
const REMOTE = new Set(['anthropic', 'openai', 'openai-compatible']);

/**
 * Where limits go, refused (before anything is written) when no worker would apply them: a panel has no
 * provider of its own (limits are per provider × model, set with a member judge), and a lexical or replay
 * judge calls no provider, so its limit would be stored and never read.
 */
function limitsFor(judge: ReturnType<typeof judgeFor>, limits: Limits): { key: string; limits: Limits } {
  if (isLoadedPanel(judge)) throw badInput(`rate limits are per provider and model; ${judge.config.id} is a panel judge: set them with each member judge`);
  if (!REMOTE.has(judge.config.provider)) throw badInput(`rate limits apply to provider calls; judge ${judge.config.id} (${judge.config.provider}) calls no provider`);
  const problem = limitProblem(limits);
  if (problem) throw badInput(problem);
  return { key: limitKey(judge.config.provider, judge.config.model), limits };
}

export async function enqueueRunGrading(database: Database, queue: GradingQueue, req: GradeRunRequest): Promise<GradeRunResult> {
  // Everything refused is refused before anything is written: the one check (checkRunGrading), then the limits.
  const { judge, run } = await checkedRunGrading(database, req);
  const limits = req.limits && (req.limits.rpm !== undefined || req.limits.tpm !== undefined) ? limitsFor(judge, req.limits) : null;
  // The judges row is written ahead of the first grade: the grading_runs row and its jobs refer to it.
  const judgeId = await ensureJudgeRow(database, judge);
  if (limits) await setLimits(database, limits.key, limits.limits);
  const boss = await queue.boss();
  const target = { runId: run.id, judgeId, judgeRef: req.judge, configHash: judge.configHash };
  const { jobIds, ...res } = await database.db.transaction((tx) => enqueueInTransaction(tx, boss, target));
  const revived = await reviveJobs(database, boss, jobIds);
  return { ...res, run: { id: run.id, name: run.name }, judge: { id: judgeId, slug: judge.config.id, configHash: judge.configHash }, resumed: revived.resumed, retried: revived.retried };
}

/**
 * Cancels the run's waiting jobs (jobs in flight finish); `assay run` again resumes them. `cancelled` is the
 * number of jobs this call moved to cancelled: one statement picks and cancels them (a job a worker takes
 * meanwhile is active, not cancelled: pg-boss's own cancel would cancel it under its worker), and the
 * grading runs that had one are marked cancelled in the same transaction.
 */
export async function cancelRunGrading(database: Database, queue: GradingQueue, q: { run: string | number; judge?: string; from?: 'network' | 'local' }): Promise<{ cancelled: number }> {
  const run = await findRun(database, q.run);
  const where = [eq(gradingRuns.runId, run.id)];
  if (q.judge) {
    // Looked up, not registered: cancelling for a judge that never graded the run writes nothing.
    const judgeId = await findJudgeRow(database, await resolveJudgeExamples(database, judgeFor(q.judge, q.from)));
    if (judgeId === null) return { cancelled: 0 };
    where.push(eq(gradingRuns.judgeId, judgeId));
  }
  // Started first: it creates the queue's tables on a database that never had them.
  await queue.boss();
  const grs = await database.db.select({ id: gradingRuns.id }).from(gradingRuns).where(and(...where));
  if (grs.length === 0) return { cancelled: 0 };
  return database.db.transaction(async (tx) => {
    // What pg-boss's cancel writes (state, completed_on), for waiting jobs only (created, retry).
    const r = await transactionExecutor(tx).executeSql(
      `update pgboss.job set state = 'cancelled', completed_on = now()
        where name = $1 and state < 'active' and (data->>'gradingRunId')::int = any($2::int[])
        returning (data->>'gradingRunId')::int as grading_run_id`,
      [GRADE_QUEUE, grs.map((g) => g.id)],
    );
    const stopped = [...new Set(r.rows.map((x) => Number(x.grading_run_id)))];
    if (stopped.length) await tx.update(gradingRuns).set({ status: 'cancelled', updatedAt: new Date() }).where(inArray(gradingRuns.id, stopped));
    return { cancelled: r.rows.length };
  });
}
