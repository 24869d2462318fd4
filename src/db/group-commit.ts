/**
 * Group commit: calls that arrive in the same event-loop turn, or while the previous statements are
 * still running, go to the database together as one statement. Under load a grading worker then pays
 * one round trip (and one server-side execution) for many answers instead of one each; idle, a call
 * waits a single turn. A batch the database refuses is retried item by item, so one bad row fails
 * alone and the others are written as if they had come one at a time.
 */

export interface GroupOptions {
  /** Items per statement (keeps parameters and statement size bounded). */
  maxBatch?: number;
  /** Statements of this kind running at once; the queue grows while they run (the larger the load, the larger the batches). */
  maxInFlight?: number;
  /**
   * How long the first call of an idle batcher waits for others (default: one event-loop turn). Worth
   * it where nobody waits on the statement's latency, as in a worker that reads ahead and writes behind.
   */
  lingerMs?: number;
  /**
   * Linger only while this holds (e.g. other jobs' calls are in flight, so their writes are on the way);
   * otherwise a single turn. The last write of a run then goes out at once instead of waiting for company
   * that will not come.
   */
  lingerWhile?: () => boolean;
}

interface Pending<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/** `run` gets the items of one batch and returns one result per item, in order. */
export function groupCommit<T, R>(run: (items: T[]) => Promise<R[]>, o: GroupOptions = {}): (item: T) => Promise<R> {
  const maxBatch = o.maxBatch ?? 128;
  const maxInFlight = o.maxInFlight ?? 2;
  const linger = o.lingerMs ?? 0;
  const queue: Array<Pending<T, R>> = [];
  let scheduled = false;
  let inFlight = 0;

  async function settle(batch: Array<Pending<T, R>>): Promise<void> {
    try {
      const out = await run(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(out[i] as R));
    } catch (e) {
      if (batch.length === 1) return batch[0]!.reject(e);
      for (const b of batch) {
        try {
          b.resolve((await run([b.item]))[0] as R);
        } catch (err) {
          b.reject(err);
        }
      }
    }
  }

  function drain(): void {
    scheduled = false;
    while (queue.length && inFlight < maxInFlight) {
      inFlight++;
      void settle(queue.splice(0, maxBatch)).finally(() => {
        inFlight--;
        drain();
      });
    }
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!scheduled && inFlight < maxInFlight) {
        scheduled = true;
        if (linger > 0 && (o.lingerWhile?.() ?? true)) setTimeout(drain, linger);
        else setImmediate(drain);
      }
    });
}
