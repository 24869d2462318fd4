import { badInput } from '../domain/errors.ts';
import { assertOneLabelType, compareLabels, indexOf, requireOrderOfText } from './categories.ts';
import type { Label } from './types.ts';

/**
 * Krippendorff's alpha by the coincidence-matrix method (Krippendorff 2011, "Computing Krippendorff's
 * Alpha-Reliability"): alpha = 1 − D_o/D_e = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck over the
 * pairable values (units with at least two values). Missing values are null.
 */
export type AlphaLevel = 'nominal' | 'ordinal' | 'interval' | 'ratio';

export interface AlphaResult {
  alpha: number | null;
  level: AlphaLevel;
  /** Units (columns) in the data. */
  units: number;
  /** Units with at least two values: the only ones alpha uses. */
  pairable: number;
  /** Pairable values n (the total of the coincidence matrix). */
  values: number;
  reason?: string;
}

type Metric = (c: number, k: number, cum: Float64Array, marginals: Float64Array, values: readonly number[]) => number;

// δ² between value indices c ≤ k. Ordinal uses the coincidence marginals n_g (Krippendorff 2011, E):
// (Σ_{g=c..k} n_g − (n_c + n_k)/2)², with cum[g] = Σ_{h<g} n_h.
const METRICS: Record<AlphaLevel, Metric> = {
  nominal: (c, k) => (c === k ? 0 : 1),
  ordinal: (c, k, cum, n) => {
    const d = cum[k + 1]! - cum[c]! - (n[c]! + n[k]!) / 2;
    return d * d;
  },
  interval: (c, k, _cum, _n, v) => (v[c]! - v[k]!) ** 2,
  ratio: (c, k, _cum, _n, v) => {
    const sum = v[c]! + v[k]!;
    return sum === 0 ? 0 : ((v[c]! - v[k]!) / sum) ** 2;
  },
};

const LEVELS = Object.keys(METRICS) as AlphaLevel[];

export const ORDINAL_NEEDS_ORDER = "ordinal alpha needs the values' order";

function codeValues(
  data: readonly (readonly (Label | null)[])[],
  level: AlphaLevel,
  order: readonly Label[] | undefined,
): { codes: Int32Array; values: Label[]; numeric: number[]; units: number } {
  const raters = data.length;
  const units = data[0]?.length ?? 0;
  const seen = new Set<Label>();
  data.forEach((row, r) => {
    if (!Array.isArray(row)) throw badInput(`data: row ${r + 1} is not an array`);
    if (row.length !== units) throw badInput(`data: rater ${r + 1} has ${row.length} units, rater 1 has ${units} (use null for missing)`);
    for (const v of row) {
      if (v === null || v === undefined) continue;
      if (typeof v === 'number' ? !Number.isFinite(v) : typeof v !== 'string') {
        throw badInput(`data: rater ${r + 1} holds ${JSON.stringify(v)}, expected a label, a number or null`);
      }
      if ((level === 'interval' || level === 'ratio') && typeof v !== 'number') {
        throw badInput(`data: rater ${r + 1} holds ${JSON.stringify(v)}, but the ${level} level needs numbers`);
      }
      if (level === 'ratio' && (v as number) < 0) throw badInput(`data: rater ${r + 1} holds ${v}, but the ratio level needs values ≥ 0`);
      seen.add(v);
    }
  });
  assertOneLabelType(seen, 'data');
  if (order) assertOneLabelType([...seen, ...order], 'data and order');
  let values: Label[];
  if (order && level === 'ordinal') {
    values = [...order];
    for (const v of seen) if (!values.includes(v)) throw badInput(`order: value ${JSON.stringify(v)} occurs in the data but not in the order`);
  } else {
    if (level === 'ordinal') requireOrderOfText(seen, ORDINAL_NEEDS_ORDER, 'pass order');
    values = [...seen].sort(compareLabels);
  }
  const index = indexOf(values, 'order');
  const codes = new Int32Array(raters * units);
  for (let r = 0; r < raters; r++) {
    const row = data[r]!;
    for (let u = 0; u < units; u++) {
      const v = row[u];
      codes[r * units + u] = v === null || v === undefined ? -1 : index.get(v)!;
    }
  }
  return { codes, values, numeric: values.map((v) => (typeof v === 'number' ? v : NaN)), units };
}

/**
 * Visits every pairable unit with its distinct value codes and their counts. Reused buffers keep a
 * 10,000 × 5 matrix well under the 200 ms target.
 */
function forEachPairableUnit(
  codes: Int32Array,
  raters: number,
  units: number,
  V: number,
  visit: (distinct: Int32Array, count: Float64Array, size: number, m: number) => void,
): void {
  const inUnit = new Int32Array(raters);
  const countOf = new Float64Array(V);
  for (let u = 0; u < units; u++) {
    let m = 0;
    let distinct = 0;
    for (let r = 0; r < raters; r++) {
      const c = codes[r * units + u]!;
      if (c < 0) continue;
      m++;
      if (countOf[c] === 0) inUnit[distinct++] = c;
      countOf[c]! += 1;
    }
    if (m >= 2) visit(inUnit, countOf, distinct, m);
    for (let x = 0; x < distinct; x++) countOf[inUnit[x]!] = 0;
  }
}

const SAME_VALUES = 'all pairable values are the same, so expected disagreement is 0 and alpha is 0/0';

export function krippendorffAlpha(
  data: readonly (readonly (Label | null)[])[],
  level: AlphaLevel,
  opts: { order?: readonly Label[] } = {},
): AlphaResult {
  if (!LEVELS.includes(level)) throw badInput(`level: expected nominal|ordinal|interval|ratio, got '${String(level)}'`);
  const { codes, values, numeric, units } = codeValues(data, level, opts.order);
  const raters = data.length;
  const V = values.length;

  // Pass 1: marginals n_c of the coincidence matrix (each pairable value counts once).
  const marg = new Float64Array(V);
  let pairable = 0;
  let n = 0;
  forEachPairableUnit(codes, raters, units, V, (distinct, count, size, m) => {
    pairable++;
    n += m;
    for (let x = 0; x < size; x++) marg[distinct[x]!]! += count[distinct[x]!]!;
  });
  const result = { level, units, pairable, values: n };
  if (pairable === 0) return { alpha: null, ...result, reason: 'no unit has two or more values, so nothing is pairable' };
  // Decided on the counts, not on D_e: the interval closed form turns one value whose mean does not round
  // exactly (6 × 0.7 / 6 = 0.7000000000000001) into residue > 0, and alpha would read 1 for 0/0.
  let used = 0;
  for (let c = 0; c < V; c++) if (marg[c]! > 0) used++;
  if (used < 2) return { alpha: null, ...result, reason: SAME_VALUES };
  const cum = new Float64Array(V + 1);
  for (let c = 0; c < V; c++) cum[c + 1] = cum[c]! + marg[c]!;
  const metric = METRICS[level];
  const delta = (c: number, k: number) => (c < k ? metric(c, k, cum, marg, numeric) : metric(k, c, cum, marg, numeric));

  // Pass 2: Σ_c Σ_k o_ck δ²_ck without materialising o: unit u adds n_uc n_uk / (m_u − 1) per ordered pair.
  let observed = 0;
  forEachPairableUnit(codes, raters, units, V, (distinct, count, size, m) => {
    let s = 0;
    for (let x = 0; x < size; x++) {
      const c = distinct[x]!;
      for (let y = x + 1; y < size; y++) {
        const k = distinct[y]!;
        s += count[c]! * count[k]! * delta(c, k);
      }
    }
    observed += (2 * s) / (m - 1);
  });

  const expected = expectedDisagreement(level, marg, numeric, n, delta);
  if (!(expected > 0)) return { alpha: null, ...result, reason: SAME_VALUES };
  return { alpha: 1 - ((n - 1) * observed) / expected, ...result };
}

/** Σ_c Σ_k n_c n_k δ²_ck: closed forms for nominal and interval, the O(V²) sum otherwise. */
function expectedDisagreement(
  level: AlphaLevel,
  marg: Float64Array,
  numeric: readonly number[],
  n: number,
  delta: (c: number, k: number) => number,
): number {
  const V = marg.length;
  if (level === 'nominal') {
    let sq = 0;
    for (let c = 0; c < V; c++) sq += marg[c]! * marg[c]!;
    return n * n - sq;
  }
  if (level === 'interval') {
    // Σ_c Σ_k n_c n_k (v_c − v_k)² = 2n Σ n_c v_c² − 2 (Σ n_c v_c)², centred to avoid cancellation.
    let mean = 0;
    for (let c = 0; c < V; c++) mean += marg[c]! * numeric[c]!;
    mean /= n;
    let ss = 0;
    for (let c = 0; c < V; c++) ss += marg[c]! * (numeric[c]! - mean) ** 2;
    return 2 * n * ss;
  }
  let s = 0;
  for (let c = 0; c < V; c++) {
    if (marg[c] === 0) continue;
    for (let k = c + 1; k < V; k++) if (marg[k] !== 0) s += marg[c]! * marg[k]! * delta(c, k);
  }
  return 2 * s;
}
