import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { gradingRuns, judges } from '../../db/schema.ts';
import { AssayError } from '../../domain/errors.ts';
import { createAdapter, preloadAdapters, type ProviderKeys } from '../../judges/adapters/index.ts';
import type { LoadedJudge } from '../../judges/config.ts';
import { loadJudgeOrPanel } from '../../judges/panel-config.ts';
import type { CallGate } from '../../judges/engine.ts';
import type { Judge } from '../../judges/types.ts';
import type { BossOptions } from '../../jobs/boss.ts';
import { slotGate } from '../../jobs/call-slots.ts';
import { dbRateLimiter, limitKey, rateLimitGate } from '../../jobs/rate-limit.ts';
import type { LivenessOptions } from '../../jobs/liveness.ts';
import { type JobContext, type JobHandler, startWorkLoop, type WorkLoop } from '../../jobs/work-loop.ts';
import { type GradingQueue, gradingQueue } from './queue.ts';
import { resolveJudgeExamples } from './judge-examples.ts';
import { type AnySession, openGradingSession } from './panel-session.ts';
import type { SessionOptions } from './session.ts';

/**
 * A grading worker (`assay worker`, the in-process worker of `assay run`): the queue's work loop
 * (src/jobs/work-loop.ts) with the job that grades. A job is idempotent: an answer that already has a
 * final grade from the judge is skipped without a call, a verdict already paid for is read from the
 * response cache, and the grade is an upsert on (answer, judge). One grading session per grading run,
 * its judge loaded by the reference the run was enqueued with and checked against its config hash.
 */

export interface WorkerOptions {
  /** Provider calls at once (`--concurrency`). */
  concurrency: number;
  /** Jobs held beyond the calls (default: as many as `concurrency`). */
  prefetch?: number;
  keys?: ProviderKeys;
  /** Builds the provider adapter for a judge (tests and benchmarks); default: the real SDK adapter. */
  adapterFor?: (judge: LoadedJudge) => Promise<Judge>;
  engine?: SessionOptions['engine'];
  /** Work this queue (the caller stops it); without one the worker opens its own and stops it with itself. */
  queue?: GradingQueue;
  /** Settings of the worker's own queue. */
  boss?: BossOptions;
  /** Sleep between empty fetches, in milliseconds. */
  pollMs?: number;
  /** Stop once these grading runs have no job left to do (the in-process worker of `assay run`). */
  untilDone?: number[];
  /** Shared rate limits apply to LLM judges unless false. */
  rateLimits?: boolean;
  liveness?: LivenessOptions;
}

export type { WorkerStats } from '../../jobs/work-loop.ts';
export type GradeWorker = WorkLoop;

const LLM = new Set(['anthropic', 'openai', 'openai-compatible']);
/**
 * Group-commit window of a worker's writes: they happen after the job's call, so no call waits on
 * them, and the database sees a few statements per window instead of two per answer.
 */
const WRITE_LINGER_MS = 20;

/** The job that grades: one session per grading run, opened on its first job. */
function gradingHandler(database: Database, o: WorkerOptions, ctx: JobContext): JobHandler {
  const sessions = new Map<number, Promise<AnySession>>();

  async function open(gradingRunId: number): Promise<AnySession> {
    const [row] = await database.db
      .select({ ref: gradingRuns.judgeRef, hash: judges.configHash })
      .from(gradingRuns)
      .innerJoin(judges, eq(judges.id, gradingRuns.judgeId))
      .where(eq(gradingRuns.id, gradingRunId));
    if (!row) throw new AssayError('not_found', `grading run ${gradingRunId} not found`);
    // Examples resolved as enqueueing resolved them: changed examples or labels are a changed judge.
    const judge = await resolveJudgeExamples(database, loadJudgeOrPanel(row.ref));
    if (judge.configHash !== row.hash) {
      throw new AssayError('bad_input', `judge '${row.ref}' on this machine differs from the one the run was enqueued with (config hash)`);
    }
    // One gate per judge (a panel's members each): the slot is taken first (a call waiting for the
    // shared rate limit counts as in flight), then the judge's provider × model rate limit; the engine
    // writes the pending ledger row last, just before the request leaves. A panel member's call takes a
    // slot like any call, so `--concurrency` bounds provider calls, not answers.
    const slot = slotGate(ctx.slots);
    const { alive } = ctx;
    const gateFor = (j: LoadedJudge): CallGate => {
      const limited =
        o.rateLimits !== false && LLM.has(j.config.provider) ? rateLimitGate(dbRateLimiter(database, limitKey(j.config.provider, j.config.model)), j.config.params.max_tokens) : null;
      return (req, send) => slot(req, () => (limited ? limited(req, () => alive(req, send)) : alive(req, send)));
    };
    const adapterFor = o.adapterFor ?? ((j: LoadedJudge) => createAdapter(j, o.keys ?? {}));
    // Enqueueing wrote the judges row; the session finds the same one by config hash.
    return openGradingSession(database, { judge, adapterFor, gateFor, workerId: ctx.workerId, writeLingerMs: WRITE_LINGER_MS, writeLingerWhile: () => ctx.slots.busy > 0, ...(o.engine ? { engine: o.engine } : {}) });
  }

  function sessionFor(gradingRunId: number): Promise<AnySession> {
    let s = sessions.get(gradingRunId);
    if (!s) {
      s = open(gradingRunId);
      s.catch(() => sessions.delete(gradingRunId));
      sessions.set(gradingRunId, s);
    }
    return s;
  }

  // The runs this worker was started for (`assay run`) open their session now, while the first fetch is
  // on its way, not when its first job arrives; a failure here is met again (and reported) by that job.
  for (const id of o.untilDone ?? []) sessionFor(id).catch(() => {});

  return async (data, lease) => {
    const session = await sessionFor(data.gradingRunId);
    const g = await session.gradeQueued(data.answerId, lease);
    if (g === 'lease lost') return g;
    if (g === 'already graded' || g === 'not graded') return { outcome: g, skipped: true };
    // A provider failure is retried by the queue (with backoff); every other status is the judge's answer.
    // A panel without quorum only because providers failed is a provider failure too (needs-grading.ts).
    if (g.status === 'provider_error' || g.panel?.retryable) throw new Error(String(g.meta.reason ?? 'provider error'));
    return { outcome: g.status };
  };
}

/** Starts loading the provider SDKs the keys will use, for a caller that starts a worker soon. */
export const preloadJudgeSdks = (keys: ProviderKeys): void => preloadAdapters(keys);

export async function startWorker(database: Database, o: WorkerOptions): Promise<GradeWorker> {
  // The SDKs load while the queue starts, not when the first job is already waiting on them.
  if (o.keys) preloadAdapters(o.keys);
  const own = o.queue ? null : gradingQueue(database, o.boss ?? {});
  const queue = o.queue ?? own!;
  let loop: WorkLoop;
  try {
    loop = await startWorkLoop(
      database,
      {
        concurrency: o.concurrency,
        boss: await queue.boss(),
        ...(o.prefetch !== undefined ? { prefetch: o.prefetch } : {}),
        ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}),
        ...(o.untilDone ? { untilDone: o.untilDone } : {}),
        ...(o.liveness ? { liveness: o.liveness } : {}),
      },
      (ctx) => gradingHandler(database, o, ctx),
    );
  } catch (e) {
    await own?.stop();
    throw e;
  }
  if (!own) return loop;
  return {
    get stats() {
      return loop.stats;
    },
    done: loop.done,
    workerId: loop.workerId,
    async stop(opts) {
      await loop.stop(opts);
      await own.stop();
    },
  };
}
