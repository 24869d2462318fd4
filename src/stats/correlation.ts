import { badInput } from '../domain/errors.ts';
import { tTwoSidedP } from './beta.ts';
import { checkConfidence, normalTwoSidedP, twoSidedZ } from './normal.ts';
import type { Interval } from './types.ts';

/**
 * Pearson, Spearman and Kendall correlations with two-sided p-values (H0: no association).
 * - Pearson: p from Student's t with n − 2 df (exact under bivariate normality); CI by Fisher's z.
 * - Spearman: Pearson on average ranks (ties share the mean rank); p by the same t approximation as
 *   scipy.stats.spearmanr (not an exact permutation p, which matters below n ≈ 10).
 * - Kendall tau-b (ties in either variable corrected); p from the normal approximation with the
 *   tie-corrected variance — scipy.stats.kendalltau(method='asymptotic').
 */

export interface CorrelationResult {
  r: number | null;
  p: number | null;
  n: number;
  reason?: string;
}

function check(x: readonly number[], y: readonly number[]): void {
  if (x.length !== y.length) throw badInput(`x has ${x.length} values and y has ${y.length} (need one pair per item)`);
  for (const [name, v] of [['x', x], ['y', y]] as const) {
    v.forEach((value, i) => {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw badInput(`${name}: value ${i + 1} is ${JSON.stringify(value)}, expected a finite number`);
    });
  }
}

/**
 * Sums about the first pair (a shift changes no correlation): constant data then sums to exactly 0,
 * where a mean such as 7 × 0.1 / 7 = 0.10000000000000002 would leave residue that reads as variance.
 */
function pearsonCore(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  const n = x.length;
  const x0 = x[0]!;
  const y0 = y[0]!;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i]! - x0;
    my += y[i]! - y0;
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - x0 - mx;
    const dy = y[i]! - y0 - my;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  // Rounding can push |r| a hair past 1.
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
}

function tP(r: number, n: number): number {
  const df = n - 2;
  if (Math.abs(r) === 1) return 0;
  return tTwoSidedP(r * Math.sqrt(df / ((1 - r) * (1 + r))), df);
}

const ZERO_VARIANCE = 'one variable is constant (zero variance), so the correlation is 0/0';

export function pearson(
  x: readonly number[],
  y: readonly number[],
  confidence = 0.95,
): CorrelationResult & { ci: [number, number] | null } {
  check(x, y);
  checkConfidence(confidence);
  const n = x.length;
  if (n < 3) return { r: null, p: null, n, ci: null, reason: 'need at least 3 pairs' };
  const r = pearsonCore(x, y);
  if (r === null) return { r: null, p: null, n, ci: null, reason: ZERO_VARIANCE };
  let ci: Interval | null = null;
  if (n > 3 && Math.abs(r) < 1) {
    const z = Math.atanh(r);
    const h = twoSidedZ(confidence) / Math.sqrt(n - 3);
    ci = [Math.tanh(z - h), Math.tanh(z + h)];
  } else if (Math.abs(r) === 1) {
    ci = [r, r];
  }
  const out: CorrelationResult & { ci: Interval | null } = { r, p: tP(r, n), n, ci };
  if (ci === null) out.reason = 'the Fisher z interval needs at least 4 pairs';
  return out;
}

/** Ranks 1..n with ties given their average rank. */
export function averageRanks(v: readonly number[]): Float64Array {
  const n = v.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => v[a]! - v[b]!);
  const ranks = new Float64Array(n);
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && v[order[j + 1]!] === v[order[i]!]) j++;
    const rank = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) ranks[order[t]!] = rank;
    i = j + 1;
  }
  return ranks;
}

export function spearman(x: readonly number[], y: readonly number[]): CorrelationResult {
  check(x, y);
  const n = x.length;
  if (n < 3) return { r: null, p: null, n, reason: 'need at least 3 pairs' };
  const r = pearsonCore(averageRanks(x), averageRanks(y));
  if (r === null) return { r: null, p: null, n, reason: ZERO_VARIANCE };
  return { r, p: tP(r, n), n };
}

/** Σ t(t−1), Σ t(t−1)(t−2), Σ t(t−1)(2t+5) over tie groups of sizes t. */
function tieSums(v: readonly number[]): [number, number, number] {
  const counts = new Map<number, number>();
  for (const x of v) counts.set(x, (counts.get(x) ?? 0) + 1);
  let a = 0;
  let b = 0;
  let c = 0;
  for (const t of counts.values()) {
    a += t * (t - 1);
    b += t * (t - 1) * (t - 2);
    c += t * (t - 1) * (2 * t + 5);
  }
  return [a, b, c];
}

/** Inversions (i < j with v[i] > v[j], ties not counted) by merge sort; sorts v in place. */
function countInversions(v: Float64Array<ArrayBuffer>): number {
  const n = v.length;
  let buf: Float64Array<ArrayBuffer> = new Float64Array(n);
  let src: Float64Array<ArrayBuffer> = v;
  let inversions = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if (src[j]! < src[i]!) {
          inversions += mid - i;
          buf[k++] = src[j++]!;
        } else buf[k++] = src[i++]!;
      }
      while (i < mid) buf[k++] = src[i++]!;
      while (j < hi) buf[k++] = src[j++]!;
    }
    [src, buf] = [buf, src];
  }
  if (src !== v) v.set(src);
  return inversions;
}

/**
 * S = concordant − discordant pairs in O(n log n) (Knight 1966, as scipy): sort by (x, y); pairs tied in
 * x are then in y order, so the discordant pairs are exactly the inversions of y. S = n0 − n1 − n2 + n3
 * − 2·discordant, with n3 the pairs tied in both.
 */
export function kendallS(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => x[i]! - x[j]! || y[i]! - y[j]!);
  const ys = new Float64Array(n);
  let tiedX = 0;
  let tiedBoth = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && x[order[j + 1]!] === x[order[i]!]) j++;
    tiedX += ((j - i + 1) * (j - i)) / 2;
    for (let s = i; s <= j; ) {
      let t = s;
      while (t + 1 <= j && y[order[t + 1]!] === y[order[s]!]) t++;
      tiedBoth += ((t - s + 1) * (t - s)) / 2;
      s = t + 1;
    }
    i = j + 1;
  }
  for (let i = 0; i < n; i++) ys[i] = y[order[i]!]!;
  const discordant = countInversions(ys);
  let tiedY = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && ys[j + 1] === ys[i]) j++; // ys is now sorted
    tiedY += ((j - i + 1) * (j - i)) / 2;
    i = j + 1;
  }
  const pairs = (n * (n - 1)) / 2;
  return pairs - tiedX - tiedY + tiedBoth - 2 * discordant;
}

export function kendall(x: readonly number[], y: readonly number[]): CorrelationResult {
  check(x, y);
  const n = x.length;
  if (n < 2) return { r: null, p: null, n, reason: 'need at least 2 pairs' };
  const [xt, x0, x1] = tieSums(x);
  const [yt, y0, y1] = tieSums(y);
  const pairs = (n * (n - 1)) / 2;
  const n1 = xt / 2; // pairs tied in x
  const n2 = yt / 2;
  if (n1 === pairs || n2 === pairs) return { r: null, p: null, n, reason: ZERO_VARIANCE };
  const s = kendallS(x, y);
  const tau = Math.max(-1, Math.min(1, s / Math.sqrt((pairs - n1) * (pairs - n2))));
  const m = n * (n - 1);
  const variance = (m * (2 * n + 5) - x1 - y1) / 18 + (xt * yt) / (2 * m) + (n > 2 ? (x0 * y0) / (9 * m * (n - 2)) : 0);
  const p = variance > 0 ? normalTwoSidedP(s / Math.sqrt(variance)) : null;
  const out: CorrelationResult = { r: tau, p, n };
  if (p === null) out.reason = 'the variance of S is 0';
  return out;
}
