import { randomUUID } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { Database } from '../db/client.ts';
import type { CallGate } from '../judges/engine.ts';
import type { JobLease } from '../judges/store.ts';
import { GRADE_QUEUE, type GradeJobData } from './boss.ts';
import { type CallSlots, callSlots } from './call-slots.ts';
import { completeLeased, failLeased, leaseOf } from './leases.ts';
import { checkLiveness, type LivenessOptions, livenessDefaults, startLiveness } from './liveness.ts';

/**
 * The queue side of a worker: keeps up to `concurrency` provider calls in flight, with as many jobs
 * again read ahead or writing their results, fetching more from pg-boss (FOR UPDATE SKIP LOCKED, so any
 * number of workers on any number of machines share one queue). What a job does is the handler's
 * (the grading handler is src/services/grading/worker.ts); this loop holds each job under a lease
 * (leases.ts), heartbeats the worker's `workers` row (liveness.ts) — a worker that dies has its jobs
 * handed back by the live workers' sweeps — and completes jobs in bulk. Once a job is handed to another
 * worker, this one's completion and failure for it are refused, so a slow worker cannot finish it twice.
 */

export interface WorkLoopOptions {
  /** Provider calls at once (`--concurrency`). */
  concurrency: number;
  /**
   * Jobs held beyond the calls, reading their answer or writing their grade while the calls run
   * (default: as many as `concurrency`). They are active in pg-boss, so a crash redelivers them.
   */
  prefetch?: number;
  /** The started pg-boss to fetch from (the loop never stops it). */
  boss: PgBoss;
  /** Sleep between empty fetches, in milliseconds. */
  pollMs?: number;
  /** Stop once these grading runs have no job left to do (the in-process worker of `assay run`). */
  untilDone?: number[];
  /** Heartbeat, dead-after and sweep times (default livenessDefaults(): 5 s, 30 s, 5 s). */
  liveness?: LivenessOptions;
}

/** What the loop lends each job's handler. */
export interface JobContext {
  workerId: string;
  /** The semaphore of the `concurrency` provider calls: a handler's calls take a slot each. */
  slots: CallSlots;
  /** Holds back every call once the worker is abandoned (a crash): a call not yet sent never is. */
  alive: CallGate;
}

/** A job's result: a grade written (or a judge's failure status), a job with nothing to do, or a lost lease. */
export type JobResult = { outcome: string; skipped?: boolean } | 'lease lost';
/** Runs one job; a thrown error fails it (pg-boss retries with backoff, then dead-letters it). */
export type JobHandler = (data: GradeJobData, lease: JobLease) => Promise<JobResult>;

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

export interface WorkLoop {
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

/** Completions are written to the queue at most this often (a lost one only means a no-call redelivery). */
const COMPLETE_EVERY_MS = 50;

export async function startWorkLoop(database: Database, o: WorkLoopOptions, handlerFor: (ctx: JobContext) => JobHandler): Promise<WorkLoop> {
  const liveness = o.liveness ? checkLiveness(o.liveness) : livenessDefaults();
  const boss = o.boss;
  const pollMs = o.pollMs ?? 250;
  const slots = callSlots(o.concurrency);
  const maxJobs = o.concurrency + (o.prefetch ?? o.concurrency);
  const fetchAtLeast = Math.max(1, Math.floor((maxJobs - o.concurrency) / 4));
  const workerId = randomUUID();
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
  const inflight = new Set<Promise<void>>();
  let stopping = false;
  // A job that ends while the loop is fetching (not napping) leaves a wake-up for the next nap: without it
  // the loop would sleep a whole pollMs after the last job of a run finished (the tail of `assay run`).
  let woken = false;
  let wake: () => void = () => void (woken = true);
  const nap = (ms: number) =>
    new Promise<void>((r) => {
      if (woken) return (woken = false), r();
      const t = setTimeout(() => (reset(), r()), ms);
      wake = () => (clearTimeout(t), reset(), r());
    });
  const reset = () => void ((woken = false), (wake = () => void (woken = true)));
  // An abandoned worker is dead: a call not yet sent never is (and so has no pending ledger row).
  const alive: CallGate = (_req, send) => (abandoned ? new Promise(() => {}) : send());

  const handle = handlerFor({ workerId, slots, alive });

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
          if (out === 'lease lost') {
            // Another worker holds the job now: nothing of this one's is written, not even the completion.
            stats.leaseLost++;
            held.delete(job.id);
            return;
          }
          if (out.skipped) stats.skipped++;
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
        wake();
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
      wake();
      await done;
    },
  };
}
