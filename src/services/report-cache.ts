import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database } from '../db/client.ts';
import { memoLast } from './content-memo.ts';
import { dataVersions, type DataVersions } from './data-versions.ts';
import { REPORT_TABLES, type ReportTable } from './report-inputs.ts';
import { VersionedCache, type CacheStats } from './versioned-cache.ts';

/**
 * Report results cached per version of the tables they read (data-versions.ts; the tables: report-inputs.ts),
 * computed once however many requests ask at the same time (versioned-cache.ts).
 *
 * Every caller gets its own structured clone of the cached value, so no request can change another's.
 */

/** Still imported from here by web-calibration-panel.ts and grading/calibration-labels.ts. */
export { memoLast, type ReportTable };

const REPORTS_PER_DATABASE = 200;
const byDatabase = new WeakMap<Database, VersionedCache>();
const cacheOf = (database: Database) => {
  let c = byDatabase.get(database);
  if (!c) byDatabase.set(database, (c = new VersionedCache(REPORTS_PER_DATABASE)));
  return c;
};

/*
 * One version read per computation, however many cached parts it asks for. A report computed for a
 * request reads the versions once, when it starts; the reports, parts and pages it asks for inside (a page
 * its report, a report its facts) take their stamps from that same read instead of reading again (two
 * round trips each: on a loaded PGlite, 3–4 ms a read, six to eight reads a cold page). That is what the
 * outer request asked for: whatever was committed before it asked is in that read. A write committed
 * since is, at worst, inside a part filed under the older stamp — the case data-versions.ts allows:
 * never data older than asked for, and the next request, seeing the sequence moved, recomputes.
 */
const computing = new AsyncLocalStorage<{ database: Database; versions: DataVersions }>();

/** A cache lookup whose computation runs with the versions its stamp came from (see above). */
function lookup<T>(cache: VersionedCache, database: Database, key: string, inputs: readonly string[], compute: () => Promise<T>, copy?: (v: T) => T): Promise<T> {
  let versions: DataVersions | undefined;
  const readVersion = async () => {
    const inherited = computing.getStore();
    versions = inherited?.database === database ? inherited.versions : await dataVersions(database);
    return versions.stamp(inputs);
  };
  return cache.get(key, readVersion, () => computing.run({ database, versions: versions! }, compute), copy);
}

/**
 * The report under `key` (name + every parameter that changes it) for the current versions of `inputs`,
 * the tables it reads (default: every table a report may read): from the cache, from a computation
 * already in flight for those versions, or computed now.
 */
export async function cachedReport<T>(database: Database, key: string, compute: () => Promise<T>, inputs: readonly ReportTable[] = REPORT_TABLES): Promise<T> {
  return lookup(cacheOf(database), database, key, inputs, compute);
}

/** A finished response kept by the pages: strings only, so callers share it and nothing is cloned. */
export interface KeptResponse {
  readonly status: number;
  readonly type: string | null;
  readonly disposition: string | null;
  readonly body: string;
}

/** `cachedReport` for a rendered response (immutable strings: the 90 kB of a page are not copied per request). */
export async function cachedResponse(database: Database, key: string, compute: () => Promise<KeptResponse>, inputs: readonly ReportTable[] = REPORT_TABLES): Promise<KeptResponse> {
  return lookup(cacheOf(database), database, key, inputs, compute, (v) => v);
}

/*
 * Parts of reports (report-facts.ts: the facts rows are read from, a judge choice, half a leaderboard), in
 * a cache of their own: each part is filed under the versions of the tables it reads, which are fewer than
 * its report's, so a write to one table recomputes a report from the parts it touched (a regrade re-reads
 * grades, not answers or scores). Few entries (a part may be megabytes of row text), and not counted in
 * reportCacheStats, which counts whole reports.
 */
const PARTS_PER_DATABASE = 24;
const partsByDatabase = new WeakMap<Database, VersionedCache>();

/**
 * `cachedReport` for a part of a report: kept per versions of `inputs`, computed once however many reports
 * ask at the same time. The value is shared, never copied: callers only read it (texts, frozen results).
 */
export function cachedPart<T>(database: Database, key: string, compute: () => Promise<T>, inputs: readonly ReportTable[]): Promise<T> {
  let c = partsByDatabase.get(database);
  if (!c) partsByDatabase.set(database, (c = new VersionedCache(PARTS_PER_DATABASE)));
  return lookup(c, database, key, inputs, compute, (v) => v);
}

/** Hit, miss and computation counts of a database's report cache (tests and the bench read them). */
export function reportCacheStats(database: Database): CacheStats {
  return { ...cacheOf(database).stats };
}

/** A cache key from a report name and its parameters (undefined parameters leave no trace). */
export function reportKey(name: string, params: unknown): string {
  return `${name}:${JSON.stringify(params)}`;
}
