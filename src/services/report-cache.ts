import { createHash } from 'node:crypto';
import type { Database } from '../db/client.ts';

/**
 * Report results cached per data version, computed once however many requests ask at the same time.
 *
 * The version is the database's transaction snapshot (`pg_current_snapshot()`: xmin:xmax:in-progress
 * xids). It changes when any transaction that wrote something commits or aborts, and only then —
 * read-only transactions take no xid — so two equal stamps see exactly the same committed data. The
 * stamp is read before the report's queries: data committed in between lands in a result filed under
 * the older stamp, which the next request (seeing a newer stamp) simply recomputes; a result is never
 * served for data newer than it saw. The price of needing no migration: any write invalidates every
 * report (on a shared PostgreSQL server, a write to another database too, as xids are cluster-wide).
 * It costs one round trip, well under a millisecond.
 *
 * Every caller gets its own structured clone of the cached value, so no request can change another's.
 */

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
class VersionedCache {
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

const REPORTS_PER_DATABASE = 200;
const byDatabase = new WeakMap<Database, VersionedCache>();
const cacheOf = (database: Database) => {
  let c = byDatabase.get(database);
  if (!c) byDatabase.set(database, (c = new VersionedCache(REPORTS_PER_DATABASE)));
  return c;
};

const batched = new WeakMap<Database, Promise<string>>();

/**
 * The data version of the whole database (see above). Callers that arrive together share one read, and
 * only a read that starts after all of them arrived (on the next turn of the event loop): whatever any of
 * them saw committed before asking is inside it, so sharing never hands anyone an older version — while a
 * crowd of readers costs one query per turn instead of one each (on PGlite, every query runs on the main
 * thread).
 */
export function dataVersion(database: Database): Promise<string> {
  let p = batched.get(database);
  if (!p) {
    p = new Promise<string>((resolve, reject) => {
      setImmediate(() => {
        // Closed before the read starts: a caller arriving from now on waits for the next read.
        batched.delete(database);
        database.execute('select pg_current_snapshot()::text as v').then((r) => resolve(String(r.rows[0]!.v)), reject);
      });
    });
    batched.set(database, p);
  }
  return p;
}

/**
 * The report under `key` (name + every parameter that changes it) for the current data version:
 * from the cache, from a computation already in flight for that version, or computed now.
 */
export async function cachedReport<T>(database: Database, key: string, compute: () => Promise<T>): Promise<T> {
  return cacheOf(database).get(key, () => dataVersion(database), compute);
}

/** A finished response kept by the pages: strings only, so callers share it and nothing is cloned. */
export interface KeptResponse {
  readonly status: number;
  readonly type: string | null;
  readonly disposition: string | null;
  readonly body: string;
}

/** `cachedReport` for a rendered response (immutable strings: the 90 kB of a page are not copied per request). */
export async function cachedResponse(database: Database, key: string, compute: () => Promise<KeptResponse>): Promise<KeptResponse> {
  return cacheOf(database).get(key, () => dataVersion(database), compute, (v) => v);
}

/** Hit, miss and computation counts of a database's report cache (tests and the bench read them). */
export function reportCacheStats(database: Database): CacheStats {
  return { ...cacheOf(database).stats };
}

/** A cache key from a report name and its parameters (undefined parameters leave no trace). */
export function reportKey(name: string, params: unknown): string {
  return `${name}:${JSON.stringify(params)}`;
}

const content = new VersionedCache(100);

/**
 * A value that depends only on `input` (e.g. chart markup from report rows), computed once per distinct
 * input: the key is a hash of the input itself, so no data version is needed and nothing goes stale.
 */
export function memoByContent<T>(name: string, input: unknown, compute: () => Promise<T>): Promise<T> {
  const digest = createHash('sha256').update(JSON.stringify(input) ?? 'undefined').digest('base64url');
  return content.get(`${name}:${digest}`, async () => '', compute);
}
