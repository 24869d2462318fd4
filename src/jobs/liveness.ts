import { hostname } from 'node:os';
import type PgBoss from 'pg-boss';
import type { Database } from '../db/client.ts';
import { checkLivenessTimes, LIVENESS_TIMES, type LivenessTimes } from './env-seconds.ts';
import { takeOverOrphans } from './leases.ts';

/**
 * Worker liveness. Every worker has a `workers` row and heartbeats it — `last_seen` and the ids of the
 * jobs it holds — every `heartbeatMs`; a worker not seen for its `deadAfterMs` (stored in its row, so
 * every reader applies the worker's own rule) is dead. Every live worker
 * sweeps every `sweepMs`: active jobs that no live worker lists go back to the queue (leases.ts), so a
 * killed worker's jobs resume within deadAfterMs + sweepMs of its last heartbeat instead of waiting
 * for pg-boss's expiry. A worker that was only slow keeps running its jobs, but under leases that no
 * longer hold: its grades, further calls and completions are refused (src/db, leases.ts).
 * All times compare the database clock, so workers on machines with skewed clocks agree.
 */

/** Heartbeat, dead-after (at least twice the heartbeat) and sweep times, in milliseconds. */
export type LivenessOptions = LivenessTimes;

/**
 * Defaults: heartbeat every 5 s, dead after 30 s, sweep every 5 s — a dead worker's jobs resume within
 * ~35–40 s. The environment's ASSAY_WORKER_* are configuration (src/config.ts, config.jobs.liveness, read
 * once when a command starts), passed by the fronts to startWorker; nothing here reads the environment.
 */
export function livenessDefaults(): LivenessOptions {
  return { ...LIVENESS_TIMES };
}

export const checkLiveness = (o: LivenessOptions): LivenessOptions => checkLivenessTimes(o);

/** Longest time from a worker's death to its jobs being due again (a sweep may just have missed it). */
export const detectionBoundMs = (o: LivenessOptions): number => o.heartbeatMs + o.deadAfterMs + o.sweepMs;

export interface Liveness {
  /** Jobs of dead workers this worker handed back to the queue. */
  readonly takenOver: number;
  /** Stops heartbeating; `remove` deletes the row (a clean stop), otherwise it is left to go stale. */
  stop(opts: { remove: boolean }): Promise<void>;
}

/** Rows of workers gone for this long are deleted by the sweep (their pending calls then count as unsettled). */
const FORGET_AFTER_S = 3600;

export async function startLiveness(database: Database, boss: PgBoss, o: LivenessOptions & { workerId: string; held: () => string[] }): Promise<Liveness> {
  let takenOver = 0;
  let stopped = false;
  const beat = () =>
    database.execute(
      `insert into workers (id, host, pid, dead_after_ms, jobs) values ($1, $2, $3, $4, $5::jsonb)
       on conflict (id) do update set last_seen = now(), jobs = excluded.jobs`,
      [o.workerId, hostname(), process.pid, Math.round(o.deadAfterMs), JSON.stringify(o.held())],
    );
  const sweep = async () => {
    takenOver += (await takeOverOrphans(database, boss, o.deadAfterMs / 1000)).length;
    await database.execute(`delete from workers where last_seen < now() - make_interval(secs => $1::float8)`, [FORGET_AFTER_S]);
  };
  await beat();
  // Each timer re-arms only after its statement ended: a slow database gets no pile of heartbeats.
  const every = (ms: number, f: () => Promise<unknown>) => {
    let t: NodeJS.Timeout;
    const tick = () => {
      t = setTimeout(() => {
        if (stopped) return;
        void f().catch(() => {}).finally(() => !stopped && tick());
      }, ms);
      t.unref();
    };
    tick();
    return () => clearTimeout(t);
  };
  const stopBeat = every(o.heartbeatMs, beat);
  const stopSweep = every(o.sweepMs, sweep);
  // A worker starting after a crash takes the dead one's jobs as soon as they qualify.
  void sweep().catch(() => {});
  return {
    get takenOver() {
      return takenOver;
    },
    async stop({ remove }) {
      stopped = true;
      stopBeat();
      stopSweep();
      if (remove) await database.execute(`delete from workers where id = $1`, [o.workerId]).catch(() => {});
    },
  };
}
