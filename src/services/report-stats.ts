import { createHash } from 'node:crypto';
import type { BootstrapResult } from '../stats/bootstrap.ts';
import { bootstrapMeans } from '../stats/bootstrap-means.ts';
import { wilson } from '../stats/wilson.ts';

/** Small aggregation helpers shared by the report services (flat columns, so rows read as CSV too). */

export interface ReportOptions {
  /** Bootstrap seed (every interval is reproducible). */
  seed?: number;
  /** Bootstrap resamples; default 1000. */
  resamples?: number;
}

export const DEFAULT_REPORT_SEED = 1;

/** The options with their defaults filled in, so equal reports get equal cache keys. */
export const seededOptions = (opts: ReportOptions): ReportOptions => ({ seed: opts.seed ?? DEFAULT_REPORT_SEED, ...(opts.resamples !== undefined ? { resamples: opts.resamples } : {}) });

const columnsOf = (name: string, b: BootstrapResult | null): Record<string, number | null> => ({
  [name]: b?.estimate ?? null,
  [`${name}Low`]: b?.ci?.[0] ?? null,
  [`${name}High`]: b?.ci?.[1] ?? null,
});

/**
 * Mean with a 95% percentile-bootstrap interval over answers: {name, nameLow, nameHigh} — the interval of
 * bootstrapCI(values, mean) with the report's seed, every value list resampled from that same seed.
 */
export function meanColumns(name: string, values: readonly number[], opts: ReportOptions): Record<string, number | null> {
  return meanColumnsMany([[name, values]], opts)[0]!;
}

/**
 * meanColumns of each [name, values], computed together (bootstrapMeans: lists of one length share their
 * draws). An interval is a function of the list (its doubles, in order), the seed and the resamples only,
 * so each is remembered under a digest of exactly those: after a regrade only the lists that hold the
 * regraded answer are resampled again (two of a leaderboard's twenty F1 lists), the rest are the same
 * numbers they were.
 */
export function meanColumnsMany(specs: ReadonlyArray<readonly [string, readonly number[]]>, opts: ReportOptions): Array<Record<string, number | null>> {
  const o = { seed: opts.seed ?? DEFAULT_REPORT_SEED, resamples: opts.resamples ?? 1000 };
  // An empty list is all nulls without a bootstrap (so without checking its options), as before.
  const keys = specs.map(([, values]) => (values.length === 0 ? null : intervalKey(values, o)));
  const got = new Map<string, BootstrapResult>();
  const todo = new Map<string, readonly number[]>();
  keys.forEach((k, i) => {
    if (k === null || got.has(k) || todo.has(k)) return;
    const hit = recall(k);
    if (hit) got.set(k, hit);
    else todo.set(k, specs[i]![1]);
  });
  if (todo.size) {
    const boots = bootstrapMeans([...todo.values()], o);
    [...todo.keys()].forEach((k, i) => {
      got.set(k, boots[i]!);
      remember(k, boots[i]!);
    });
  }
  return specs.map(([name], i) => columnsOf(name, keys[i] === null ? null : got.get(keys[i]!)!));
}

/** Remembered intervals, least recently used dropped first (each a few numbers: thousands fit in a megabyte). */
const INTERVALS_KEPT = 4096;
const intervals = new Map<string, BootstrapResult>();

const intervalKey = (values: readonly number[], o: { seed: number; resamples: number }): string =>
  `${o.seed}:${o.resamples}:${values.length}:${createHash('sha256').update(new Uint8Array(Float64Array.from(values).buffer)).digest('base64url')}`;

function remember(key: string, b: BootstrapResult): void {
  intervals.set(key, b);
  while (intervals.size > INTERVALS_KEPT) intervals.delete(intervals.keys().next().value!);
}

function recall(key: string): BootstrapResult | undefined {
  const b = intervals.get(key);
  if (b) {
    intervals.delete(key);
    intervals.set(key, b);
  }
  return b;
}

/** A proportion with its 95% Wilson interval: {name, nameLow, nameHigh}. */
export function rateColumns(name: string, successes: number, trials: number): Record<string, number | null> {
  const w = wilson(successes, trials);
  return { [name]: w.estimate, [`${name}Low`]: w.ci?.[0] ?? null, [`${name}High`]: w.ci?.[1] ?? null };
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export const finite = (xs: ReadonlyArray<number | null>): number[] => xs.filter((x): x is number => x !== null && Number.isFinite(x));

/**
 * The bucket of answers that have no puzzle: descriptions of a picture that is not cut into pieces (the
 * ImageInWords examples, ad hoc text graded against such a rubric). Not a size, so it is never drawn as
 * if between two sizes: it sorts first, apart from the sizes, and "all" pools it with them.
 */
export const NO_PUZZLE = 'no puzzle';

/** A description's bucket: its puzzle's (or its rubric's puzzle's) size bucket, else NO_PUZZLE. */
export const descriptionBucket = (sizeBucket: string | null): string => sizeBucket ?? NO_PUZZLE;

/** An assembly always has a puzzle; one stored without a bucket is named by its piece count. */
export const assemblyBucket = (r: { sizeBucket: string | null; rows: number; cols: number }): string => r.sizeBucket ?? `${r.rows * r.cols} pieces`;

/** NO_PUZZLE first; then "~50" < "~100" < … by the number inside; others alphabetically after; "all" last. */
export function compareBuckets(a: string, b: string): number {
  if (a === b) return 0;
  if (a === NO_PUZZLE) return -1;
  if (b === NO_PUZZLE) return 1;
  if (a === 'all') return 1;
  if (b === 'all') return -1;
  const na = Number(/\d+/.exec(a)?.[0] ?? NaN);
  const nb = Number(/\d+/.exec(b)?.[0] ?? NaN);
  if (Number.isFinite(na) && Number.isFinite(nb) && na !== nb) return na - nb;
  if (Number.isFinite(na) !== Number.isFinite(nb)) return Number.isFinite(na) ? -1 : 1;
  return a.localeCompare(b);
}

/** Effort levels in their natural order; unknown levels after, alphabetically. */
const EFFORT_ORDER = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
export function compareEffort(a: string, b: string): number {
  const ia = EFFORT_ORDER.indexOf(a);
  const ib = EFFORT_ORDER.indexOf(b);
  if (ia >= 0 && ib >= 0) return ia - ib;
  if (ia >= 0 !== ib >= 0) return ia >= 0 ? -1 : 1;
  return a.localeCompare(b);
}

export function groupInto<T>(xs: readonly T[], keys: (x: T) => string[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of xs) {
    for (const k of keys(x)) {
      const list = out.get(k);
      if (list) list.push(x);
      else out.set(k, [x]);
    }
  }
  return out;
}
