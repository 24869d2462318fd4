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

interface Entry {
  version: string;
  value: unknown;
}

/** A small LRU of settled values plus the computations in flight, keyed by key + version. */
class VersionedCache {
  readonly entries = new Map<string, Entry>();
  readonly flights = new Map<string, Promise<unknown>>();
  readonly stats: CacheStats = { hits: 0, misses: 0, computes: 0 };
  constructor(private readonly capacity: number) {}

  async get<T>(key: string, version: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.version === version) {
      this.stats.hits++;
      this.entries.delete(key);
      this.entries.set(key, hit);
      return structuredClone(hit.value) as T;
    }
    this.stats.misses++;
    const flightKey = `${version}\u0000${key}`;
    let flight = this.flights.get(flightKey);
    if (!flight) {
      this.stats.computes++;
      flight = compute().then(
        (value) => {
          this.flights.delete(flightKey);
          this.entries.delete(key);
          this.entries.set(key, { version, value });
          while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
          return value;
        },
        (e: unknown) => {
          // Errors are not cached: the next request tries again.
          this.flights.delete(flightKey);
          throw e;
        },
      );
      this.flights.set(flightKey, flight);
    }
    return structuredClone(await flight) as T;
  }
}

const REPORTS_PER_DATABASE = 200;
const byDatabase = new WeakMap<Database, VersionedCache>();
const cacheOf = (database: Database) => {
  let c = byDatabase.get(database);
  if (!c) byDatabase.set(database, (c = new VersionedCache(REPORTS_PER_DATABASE)));
  return c;
};

/** The data version of the whole database (see above). */
export async function dataVersion(database: Database): Promise<string> {
  const r = await database.execute('select pg_current_snapshot()::text as v');
  return String(r.rows[0]!.v);
}

/**
 * The report under `key` (name + every parameter that changes it) for the current data version:
 * from the cache, from a computation already in flight for that version, or computed now.
 */
export async function cachedReport<T>(database: Database, key: string, compute: () => Promise<T>): Promise<T> {
  return cacheOf(database).get(key, await dataVersion(database), compute);
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
  return content.get(`${name}:${digest}`, '', compute);
}
