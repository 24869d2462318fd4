import type { CallGate } from '../judges/engine.ts';
import type { Judge } from '../judges/types.ts';

/**
 * The worker's `--concurrency K`: at most K provider calls at once. Jobs hold a slot only for the
 * call, not for reading the answer before it or writing the grade after it, so those database round
 * trips overlap other jobs' calls instead of adding to every job's time: with a provider latency L,
 * N answers take close to N·L/K.
 */

export interface CallSlots {
  readonly size: number;
  /** Calls running now. */
  readonly busy: number;
  run<T>(f: () => Promise<T>): Promise<T>;
}

export function callSlots(size: number): CallSlots {
  let busy = 0;
  const waiting: Array<() => void> = [];
  return {
    size,
    get busy() {
      return busy;
    },
    async run(f) {
      if (busy >= size) await new Promise<void>((r) => waiting.push(r));
      else busy++;
      try {
        return await f();
      } finally {
        // The slot passes straight to the next waiter (busy unchanged) or is freed.
        const next = waiting.shift();
        if (next) next();
        else busy--;
      }
    },
  };
}

/** A call gate taking a slot for the call (the engine writes the pending ledger row inside it). */
export const slotGate = (slots: CallSlots): CallGate => (_req, send) => slots.run(send);

/** The adapter with every call taking a slot. */
export function slottedJudge(inner: Judge, slots: CallSlots): Judge {
  return { provider: inner.provider, model: inner.model, baseline: inner.baseline, call: (req) => slots.run(() => inner.call(req)) };
}
