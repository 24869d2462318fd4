import type PgBoss from 'pg-boss';
import type { Database } from '../../db/client.ts';
import { type BossOptions, startBoss } from '../../jobs/boss.ts';

/**
 * The grading queue as the fronts hold it: a handle that starts pg-boss on first use and stops it with
 * its owner — the server's stop(), the end of a CLI command. The fronts never touch pg-boss itself;
 * the services that enqueue, cancel, retry and work take this handle.
 */

export type QueueState = 'idle' | 'started' | 'stopped';

export interface GradingQueue {
  /** pg-boss, started on the first call (one start, shared by callers that arrive together). */
  boss(): Promise<PgBoss>;
  readonly state: QueueState;
  /** Stops pg-boss if it was started (idempotent); later boss() calls are refused. */
  stop(): Promise<void>;
}

export type QueueOptions = BossOptions;

export function gradingQueue(database: Database, o: QueueOptions = {}): GradingQueue {
  let starting: Promise<PgBoss> | null = null;
  let state: QueueState = 'idle';
  const handle: GradingQueue = {
    get state() {
      return state;
    },
    boss() {
      if (state === 'stopped') return Promise.reject(new Error('the grading queue is stopped'));
      if (!starting) {
        starting = startBoss(database, o).then(
          (b) => ((state = 'started'), b),
          (e: unknown) => {
            // A failed start (database briefly unreachable) is tried again by the next caller.
            starting = null;
            throw e;
          },
        );
      }
      return starting;
    },
    async stop() {
      const was = starting;
      state = 'stopped';
      starting = null;
      if (!was) return;
      const b = await was.catch(() => null);
      // close: false — the connection is the project's database handle, closed by its owner.
      await b?.stop({ graceful: false, close: false, wait: true } as PgBoss.StopOptions);
    },
  };
  return handle;
}

/** Opens the queue, runs `f`, and stops the queue on every path out (a CLI command's lifetime). */
export async function withGradingQueue<T>(database: Database, o: QueueOptions, f: (queue: GradingQueue) => Promise<T>): Promise<T> {
  const queue = gradingQueue(database, o);
  try {
    return await f(queue);
  } finally {
    await queue.stop();
  }
}
