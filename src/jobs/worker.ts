import { randomUUID } from 'node:crypto';
import type PgBoss from 'pg-boss';
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { gradingRuns, judges } from '../db/schema.ts';
import { AssayError } from '../domain/errors.ts';
import { createAdapter, preloadAdapters, type ProviderKeys } from '../judges/adapters/index.ts';
import { type LoadedJudge, loadJudge } from '../judges/config.ts';
import type { CallGate } from '../judges/engine.ts';
import type { JobLease } from '../judges/store.ts';
import type { Judge } from '../judges/types.ts';
import { createGradingSession, type GradingSession, type SessionOptions } from '../services/grading.ts';
import { type BossOptions, GRADE_QUEUE, startBoss } from './boss.ts';
import { callSlots, slotGate } from './call-slots.ts';
import type { GradeJobData } from './enqueue.ts';
import { completeLeased, failLeased, leaseOf } from './leases.ts';
import { checkLiveness, type LivenessOptions, livenessDefaults, startLiveness } from './liveness.ts';
import { dbRateLimiter, limitKey, rateLimitGate } from './rate-limit.ts';

/**
 * A grading worker: keeps up to `concurrency` provider calls in flight, with as many jobs again read
 * ahead or writing their grades, fetching more from pg-boss (FOR UPDATE
 * SKIP LOCKED, so any number of workers on any number of machines share one queue). A job is
 * idempotent: an answer that already has a final grade from the judge is skipped without a call, a
 * verdict already paid for is read from the response cache, and the grade is an upsert on
 * (answer, judge). A worker heartbeats its `workers` row; one that dies (not seen for the liveness
 * window) has its jobs handed back by the live workers' sweeps (liveness.ts). Every job is held under a
 * lease (leases.ts): once it is handed to another worker, this one's calls, grade and completion for it
 * are refused, so a worker that was only slow cannot grade or pay twice.
 */

export interface WorkerOptions {
  /** Provider calls at once (`--concurrency`). */
  concurrency: number;
  /**
   * Jobs held beyond the calls, reading their answer or writing their grade while the calls run
   * (default: as many as `concurrency`). They are active in pg-boss, so a crash redelivers them.
   */
  prefetch?: number;
  keys?: ProviderKeys;
  /** Builds the provider adapter for a judge (tests and benchmarks); default: the real SDK adapter. */
  adapterFor?: (judge: LoadedJudge) => Promise<Judge>;
  engine?: SessionOptions['engine'];
  boss?: BossOptions;
  /** Use this pg-boss instead of starting one (it is not stopped by the worker). */
  bossInstance?: PgBoss;
  /** Sleep between empty fetches, in milliseconds. */
  pollMs?: number;
  /** Stop once these grading runs have no job left to do (the in-process worker of `assay run`). */
  untilDone?: number[];
  /** Shared rate limits apply to LLM judges unless false. */
  rateLimits?: boolean;
  /** Heartbeat, dead-after and sweep times (default livenessDefaults(): 5 s, 30 s, 5 s). */
  liveness?: LivenessOptions;
}

export interface WorkerStats {
  graded: number;
  skipped: number;
  failed: number;
  /** Jobs taken and not finished (calling, waiting for a call slot, reading or writing). */
  inFlight: number;
  /** Provider calls running now (at most `concurrency`). */
  calling: number;
  /** Jobs of dead workers this worker's sweeps handed back to the queue. */
  takenOver: number;
  /** Jobs this worker dropped, unwritten, because another worker holds them now. */
  leaseLost: number;
}

export interface GradeWorker {
  readonly stats: WorkerStats;
  /** Resolves when the loop ended (stopped, or untilDone reached). */
  readonly done: Promise<void>;
  /** This worker's `workers` row (also stored with its ledger rows). */
  readonly workerId: string;
  /**
   * graceful: finish the jobs in flight, then stop. Otherwise abandon them as a crash would: nothing
   * more is sent or written, the heartbeat stops, and live workers take the jobs after the dead-after time.
   */
  stop(opts?: { graceful?: boolean }): Promise<void>;
}

const LLM = new Set(['anthropic', 'openai', 'openai-compatible']);
/**
 * Group-commit window of a worker's writes: they happen after the job's call, so no call waits on
 * them, and the database sees a few statements per window instead of two per answer.
 */
const WRITE_LINGER_MS = 20;
/** Completions are written to the queue at most this often (a lost one only means a no-call redelivery). */
const COMPLETE_EVERY_MS = 50;

export async function startWorker(database: Database, o: WorkerOptions): Promise<GradeWorker> {
  const liveness = o.liveness ? checkLiveness(o.liveness) : livenessDefaults();
  const boss = o.bossInstance ?? (await startBoss(database, o.boss));
  const pollMs = o.pollMs ?? 250;
  const slots = callSlots(o.concurrency);
  const maxJobs = o.concurrency + (o.prefetch ?? o.concurrency);
  const fetchAtLeast = Math.max(1, Math.floor((maxJobs - o.concurrency) / 4));
  const workerId = randomUUID();
  // The SDKs load while the queue starts, not when the first job is already waiting on them.
  if (o.keys) preloadAdapters(o.keys);
  // Jobs held (fetched and not yet completed or failed in the queue): what the heartbeat lists.
  const held = new Map<string, JobLease>();
  let abandoned = false;
  const live = await startLiveness(database, boss, { ...liveness, workerId, held: () => [...held.keys()] });
  const stats: WorkerStats = {
    graded: 0,
    skipped: 0,
    failed: 0,
    inFlight: 0,
    get calling() {
      return slots.busy;
    },
    get takenOver() {
      return live.takenOver;
    },
    leaseLost: 0,
  };
  const sessions = new Map<number, Promise<GradingSession>>();
  const inflight = new Set<Promise<void>>();
  let stopping = false;
  let wake: (() => void) | null = null;
  const nap = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(() => ((wake = null), r()), ms);
      wake = () => (clearTimeout(t), (wake = null), r());
    });
  // An abandoned worker is dead: a call not yet sent never is (and so has no pending ledger row).
  const alive: CallGate = (_req, send) => (abandoned ? new Promise(() => {}) : send());

  async function contextFor(gradingRunId: number): Promise<GradingSession> {
    const [row] = await database.db
      .select({ ref: gradingRuns.judgeRef, hash: judges.configHash })
      .from(gradingRuns)
      .innerJoin(judges, eq(judges.id, gradingRuns.judgeId))
      .where(eq(gradingRuns.id, gradingRunId));
    if (!row) throw new AssayError('not_found', `grading run ${gradingRunId} not found`);
    const judge = loadJudge(row.ref);
    if (judge.configHash !== row.hash) {
      throw new AssayError('bad_input', `judge '${row.ref}' on this machine differs from the one the run was enqueued with (config hash)`);
    }
    const adapter = o.adapterFor ? await o.adapterFor(judge) : await createAdapter(judge, o.keys ?? {});
    // The slot is taken first (a call waiting for the shared rate limit counts as in flight), then the
    // rate limit; the engine writes the pending ledger row last, just before the request leaves.
    const slot = slotGate(slots);
    const limited =
      o.rateLimits !== false && LLM.has(judge.config.provider)
        ? rateLimitGate(dbRateLimiter(database, limitKey(judge.config.provider, judge.config.model)), judge.config.params.max_tokens)
        : null;
    const gate: CallGate = (req, send) => slot(req, () => (limited ? limited(req, () => alive(req, send)) : alive(req, send)));
    // Enqueueing wrote the judges row; the session finds the same one by config hash.
    return createGradingSession(database, { judge, adapter, gate, workerId, writeLingerMs: WRITE_LINGER_MS, ...(o.engine ? { engine: o.engine } : {}) });
  }

  function sessionFor(gradingRunId: number) {
    let s = sessions.get(gradingRunId);
    if (!s) {
      s = contextFor(gradingRunId);
      s.catch(() => sessions.delete(gradingRunId));
      sessions.set(gradingRunId, s);
    }
    return s;
  }

  async function handle(data: GradeJobData, lease: JobLease): Promise<{ outcome: string }> {
    const session = await sessionFor(data.gradingRunId);
    const g = await session.gradeQueued(data.answerId, lease);
    if (g === 'already graded' || g === 'lease lost') return { outcome: g };
    // A provider failure is retried by the queue (with backoff); every other status is the judge's answer.
    if (g.status === 'provider_error') throw new Error(String(g.meta.reason ?? 'provider error'));
    return { outcome: g.status };
  }

  // Completions are written in bulk: one UPDATE for every job that finished while the previous one ran.
  // A completion lost in a crash only means the job is redelivered and finds its grade (no call).
  let toComplete: Array<{ lease: JobLease; outcome: string }> = [];
  let flushing: Promise<void> | null = null;
  let flushTimer: NodeJS.Timeout | null = null;
  function flush(): Promise<void> {
    if (flushTimer) (clearTimeout(flushTimer), (flushTimer = null));
    // Entered only with work to do, so the body awaits before it clears `flushing` below.
    if (!flushing && toComplete.length && !abandoned) {
      flushing = (async () => {
        while (toComplete.length && !abandoned) {
          const batch = toComplete;
          toComplete = [];
          try {
            await completeLeased(database, batch);
          } catch {
            // complete lost (connection gone): the jobs are handed back or expire; the grades are upserts.
          }
          for (const { lease } of batch) held.delete(lease.jobId);
        }
        // Cleared in the same tick as the last check, so a completion added after it starts a new flush.
        flushing = null;
      })();
    }
    return flushing ?? Promise.resolve();
  }
  const flushSoon = () => {
    flushTimer ??= setTimeout(() => void flush(), COMPLETE_EVERY_MS);
  };

  function run(job: PgBoss.JobWithMetadata<GradeJobData>): void {
    stats.inFlight++;
    const lease = leaseOf(job);
    held.set(job.id, lease);
    const p: Promise<void> = handle(job.data, lease)
      .then(
        (out) => {
          if (abandoned) return;
          if (out.outcome === 'lease lost') {
            // Another worker holds the job now: nothing of this one's is written, not even the completion.
            stats.leaseLost++;
            held.delete(job.id);
            return;
          }
          if (out.outcome === 'already graded') stats.skipped++;
          else stats.graded++;
          toComplete.push({ lease, outcome: out.outcome });
          flushSoon();
        },
        async (err: unknown) => {
          if (abandoned) return;
          try {
            if (await failLeased(database, boss, lease, (err as Error)?.message ?? String(err))) stats.failed++;
            else stats.leaseLost++;
          } finally {
            held.delete(job.id);
          }
        },
      )
      .catch(() => {
        // fail lost (connection gone): the job is handed back or expires and is retried; the grade is an upsert.
      })
      .finally(() => {
        stats.inFlight--;
        inflight.delete(p);
        wake?.();
      });
    inflight.add(p);
  }

  async function nothingLeft(ids: number[]): Promise<boolean> {
    const r = await database.execute(
      `select count(*)::int as n from pgboss.job where name = $1 and state < 'completed' and (data->>'gradingRunId')::int = any($2::int[])`,
      [GRADE_QUEUE, ids],
    );
    return Number(r.rows[0]?.n ?? 0) === 0;
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      const free = maxJobs - inflight.size;
      // With jobs read ahead, one fetch per finished job would be a round trip per answer: wait for a few
      // free places while more jobs are held than there are call slots.
      if (free <= 0 || (free < fetchAtLeast && inflight.size > o.concurrency)) {
        await nap(pollMs);
        continue;
      }
      let jobs: PgBoss.JobWithMetadata<GradeJobData>[] = [];
      try {
        // With metadata: the job's retry_count is its lease token.
        jobs = await boss.fetch<GradeJobData>(GRADE_QUEUE, { batchSize: free, includeMetadata: true });
      } catch {
        jobs = [];
      }
      for (const job of jobs) run(job);
      if (jobs.length === free) continue;
      if (jobs.length === 0 && inflight.size === 0 && o.untilDone && (await flush(), await nothingLeft(o.untilDone))) break;
      if (stopping) break;
      await nap(pollMs);
    }
    if (!abandoned) {
      await Promise.allSettled([...inflight]);
      await flush();
    }
    // A clean end completed or failed everything it held: its row goes. An abandoned one goes stale.
    await live.stop({ remove: !abandoned });
  }

  const done = loop();
  return {
    stats,
    done,
    workerId,
    async stop({ graceful = true } = {}) {
      stopping = true;
      if (!graceful) abandoned = true;
      wake?.();
      await done;
      if (!o.bossInstance) await boss.stop({ graceful: false, close: false, wait: true } as PgBoss.StopOptions);
    },
  };
}
