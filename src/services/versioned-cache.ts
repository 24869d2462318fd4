export interface CacheStats {
  hits: number;
  misses: number;
  /** Computations started (misses that joined one already in flight are not counted again). */
  computes: number;
}

interface Slot {
  /** The last settled value and the version it was computed at. */
  entry?: { version: string; value: unknown };
  /** The computation under way, and the version it reads. */
  running?: { version: string; promise: Promise<unknown> };
  /** Requests that came while `running` computes an older version: one computation, started after it. */
  queued?: Promise<unknown>;
}

/**
 * Per key: the last value, at most one computation running and at most one queued behind it. A request
 * whose version differs from the running computation's waits for the queued one, which reads the version
 * only when it starts (after every request that joined it arrived), so nobody gets data older than they
 * asked for, and writes faster than a computation cannot pile computations up on the report thread.
 */
export class VersionedCache {
  private readonly slots = new Map<string, Slot>();
  readonly stats: CacheStats = { hits: 0, misses: 0, computes: 0 };
  constructor(private readonly capacity: number) {}

  async get<T>(key: string, readVersion: () => Promise<string>, compute: () => Promise<T>, copy: (v: T) => T = structuredClone): Promise<T> {
    const version = await readVersion();
    const slot = this.slot(key);
    if (slot.entry?.version === version) {
      this.stats.hits++;
      return copy(slot.entry.value as T);
    }
    this.stats.misses++;
    let p: Promise<unknown>;
    if (slot.running?.version === version) p = slot.running.promise;
    else if (slot.queued) p = slot.queued;
    else if (slot.running) p = slot.queued = this.queue(slot, slot.running.promise, readVersion, compute);
    else p = this.run(slot, version, compute);
    return copy((await p) as T);
  }

  private async queue(slot: Slot, before: Promise<unknown>, readVersion: () => Promise<string>, compute: () => Promise<unknown>): Promise<unknown> {
    await before.catch(() => undefined);
    // Closed to newcomers before the version is read: everyone who joined asked before this read.
    slot.queued = undefined;
    const version = await readVersion();
    if (slot.entry?.version === version) return slot.entry.value;
    if (slot.running?.version === version) return slot.running.promise;
    return this.run(slot, version, compute);
  }

  private run(slot: Slot, version: string, compute: () => Promise<unknown>): Promise<unknown> {
    this.stats.computes++;
    const promise: Promise<unknown> = compute().then(
      (value) => {
        slot.entry = { version, value };
        if (slot.running?.promise === promise) slot.running = undefined;
        return value;
      },
      (e: unknown) => {
        // Errors are not cached: the next request tries again.
        if (slot.running?.promise === promise) slot.running = undefined;
        throw e;
      },
    );
    slot.running = { version, promise };
    return promise;
  }

  /** The key's slot, most recently used last; idle slots beyond the capacity are dropped, oldest first. */
  private slot(key: string): Slot {
    let slot = this.slots.get(key);
    if (slot) this.slots.delete(key);
    else slot = {};
    this.slots.set(key, slot);
    if (this.slots.size > this.capacity) {
      for (const [k, s] of this.slots) {
        if (this.slots.size <= this.capacity) break;
        if (!s.running && !s.queued) this.slots.delete(k);
      }
    }
    return slot;
  }
}
