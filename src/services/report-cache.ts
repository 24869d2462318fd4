import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { Database } from '../db/client.ts';

/**
 * Report results cached per version of the tables they read, computed once however many requests ask
 * at the same time.
 *
 * Versions (migration 0008): every statement that writes a table moves the table's sequence
 * `data_version_<table>`, and holds a shared advisory lock on (VERSION_LOCK, the sequence's oid) until
 * its transaction ends. A report names its input tables; its stamp is those tables' sequence values, plus
 * the transactions that still hold a lock on one of them. The sequences are read first, the locks second,
 * the report's own queries after both: a write counted in the sequences has either committed (and every
 * later query sees it) or still holds its lock (so the stamp names it, and no stamp after it ends can
 * equal this one). A write not yet counted lands, at worst, in a result filed under the older stamp,
 * which the next request (seeing the sequence moved) recomputes: a result is never served for data newer
 * than it saw, and a write to a table a report does not read leaves it cached (an API key's last use, a
 * rate limit, the usage ledger, a worker's heartbeat; pg-boss's tables have no sequence at all).
 * Reading costs two round trips, well under a millisecond. A database without the sequences (migration
 * 0008 not applied) falls back to the whole database's snapshot, where any write invalidates everything.
 *
 * Every caller gets its own structured clone of the cached value, so no request can change another's.
 */

/** Arbitrary constant: the first key of the writers' advisory locks (the migration uses the same). */
const VERSION_LOCK = 1095979865;

/**
 * The tables reports read (the data), and the subsets a report can name. The operational tables (API
 * keys, rate limits, usage ledger, workers, provider batches, the judge cache, grading runs) are left
 * out: no report reads them, and they are written all the time.
 */
export const GRADED_TABLES = ['rubrics', 'rubric_versions', 'puzzles', 'runs', 'answers', 'judges', 'grades', 'assembly_scores'] as const;
export const REPORT_TABLES = [...GRADED_TABLES, 'rubric_items', 'labels', 'campaigns', 'campaign_answers', 'campaign_assignments', 'adjudications'] as const;
export type ReportTable = (typeof REPORT_TABLES)[number];
/** Calibration: labels, grades and their judges, adjudications (humans=adjudicated), campaigns; no puzzles or scores. */
export const CALIBRATION_TABLES = ['runs', 'answers', 'judges', 'grades', 'labels', 'campaigns', 'campaign_answers', 'campaign_assignments', 'adjudications'] as const satisfies readonly ReportTable[];

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

/** The tables' versions as read at one moment: `stamp(inputs)` is what a result over `inputs` is filed under. */
export interface DataVersions {
  stamp(inputs: readonly string[]): string;
}

interface SequenceRow {
  t: string;
  oid: number;
  v: string;
}

async function readVersions(database: Database): Promise<DataVersions> {
  // Sequences first, locks second (see the top of this file): the order is what makes the stamp safe.
  const seqs = (
    await database.execute(
      `select substr(c.relname, 14) as t, c.oid::int as oid, coalesce(pg_sequence_last_value(c.oid), 0)::text as v
         from pg_class c where c.relkind = 'S' and c.relname like 'data\\_version\\_%' and c.relnamespace = current_schema()::regnamespace`,
    )
  ).rows as unknown as SequenceRow[];
  if (seqs.length === 0) {
    const r = await database.execute('select pg_current_snapshot()::text as v');
    const whole = `snapshot ${String(r.rows[0]!.v)}`;
    return { stamp: () => whole };
  }
  const locks = await database.execute(
    `select objid::int as oid, virtualtransaction as vx from pg_locks
      where locktype = 'advisory' and classid = ${VERSION_LOCK} and objsubid = 2 and granted
        and database = (select oid from pg_database where datname = current_database())`,
  );
  const pending = new Map<number, string[]>();
  for (const l of locks.rows) pending.set(Number(l.oid), [...(pending.get(Number(l.oid)) ?? []), String(l.vx)]);
  const byTable = new Map(seqs.map((s) => [String(s.t), `${String(s.t)}=${String(s.v)}${pending.has(Number(s.oid)) ? `~${pending.get(Number(s.oid))!.sort().join('+')}` : ''}`]));
  return {
    stamp: (inputs) =>
      [...new Set(inputs)]
        .sort()
        .map((t) => {
          const v = byTable.get(t);
          // A misspelt table would never move: refuse it rather than cache a report forever.
          if (v === undefined) throw new Error(`report input '${t}' has no data version (migration 0008 tracks every table)`);
          return v;
        })
        .join(','),
  };
}

const batched = new WeakMap<Database, Promise<DataVersions>>();

/**
 * The data versions (see above). Callers that arrive together share one read, and only a read that
 * starts after all of them arrived (on the next turn of the event loop): whatever any of them saw
 * committed before asking is inside it, so sharing never hands anyone an older version — while a crowd of
 * readers costs one read per turn instead of one each (on PGlite, every query runs on the main thread).
 */
export function dataVersions(database: Database): Promise<DataVersions> {
  let p = batched.get(database);
  if (!p) {
    p = new Promise<DataVersions>((resolve, reject) => {
      setImmediate(() => {
        // Closed before the read starts: a caller arriving from now on waits for the next read.
        batched.delete(database);
        readVersions(database).then(resolve, reject);
      });
    });
    batched.set(database, p);
  }
  return p;
}

/** The stamp of `inputs` now (tests compare stamps across writes). */
export async function dataVersion(database: Database, inputs: readonly string[] = REPORT_TABLES): Promise<string> {
  return (await dataVersions(database)).stamp(inputs);
}

/*
 * One version read per computation, however many cached parts it asks for. A report computed for a
 * request reads the versions once, when it starts; the reports, parts and pages it asks for inside (a page
 * its report, a report its facts) take their stamps from that same read instead of reading again (two
 * round trips each: on a loaded PGlite, 3–4 ms a read, six to eight reads a cold page). That is what the
 * outer request asked for: whatever was committed before it asked is in that read. A write committed
 * since is, at worst, inside a part filed under the older stamp — the case the top of this file allows:
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

const content = new VersionedCache(100);

/**
 * A value that depends only on `input` (e.g. chart markup from report rows), computed once per distinct
 * input: the key is a hash of the input itself, so no data version is needed and nothing goes stale.
 */
export function memoByContent<T>(name: string, input: unknown, compute: () => Promise<T>): Promise<T> {
  const digest = createHash('sha256').update(JSON.stringify(input) ?? 'undefined').digest('base64url');
  return content.get(`${name}:${digest}`, async () => '', compute);
}

/**
 * A value computed from `input` under `key`, reused while the next input under the key is equal to the
 * last one (structurally: the same arrays, objects and primitives). For large inputs that rarely change
 * between data versions (a calibration's label rows: a regrade's F1 leaves the verdict rows as they
 * were), comparing with the last input costs a walk over it, several times less than hashing it. The
 * value is shared, not copied: callers only read it (the reports that use it are cloned per request).
 */
export async function memoLast<T>(key: string, input: unknown, compute: () => Promise<T>): Promise<T> {
  const last = lastInputs.get(key);
  if (last && sameData(last.input, input)) {
    lastInputs.delete(key);
    lastInputs.set(key, last);
    return last.value as T;
  }
  const value = await compute();
  lastInputs.delete(key);
  lastInputs.set(key, { input, value });
  while (lastInputs.size > LAST_INPUTS_KEPT) lastInputs.delete(lastInputs.keys().next().value!);
  return value;
}

const LAST_INPUTS_KEPT = 16;
const lastInputs = new Map<string, { input: unknown; value: unknown }>();

/** Structural equality of plain data (JSON-like; numbers by Object.is, so -0 is not 0). */
export function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * memoByContent for each of `inputs` on its own (a page's charts: a regrade that moves the F1 chart leaves
 * the three assembly charts as they were), the ones not remembered computed together by one call of
 * `computeMissing` (one thread round trip), which returns their values in order.
 */
export function memoEachByContent<T>(name: string, inputs: readonly unknown[], computeMissing: (inputs: unknown[]) => Promise<T[]>): Promise<T[]> {
  const missing: number[] = [];
  let batch: Promise<T[]> | undefined;
  const computeOne = (i: number): Promise<T> => {
    missing.push(i);
    // Deferred past the microtasks in which every input's lookup asks, so one call gets all the missing ones.
    batch ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => computeMissing(missing.map((j) => inputs[j])));
    return batch.then((values) => values[missing.indexOf(i)]!);
  };
  return Promise.all(inputs.map((input, i) => memoByContent(name, input, () => computeOne(i))));
}

