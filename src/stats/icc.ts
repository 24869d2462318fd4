import { badInput } from '../domain/errors.ts';
import { fQuantile, fSf } from './beta.ts';
import { checkConfidence } from './normal.ts';
import { finiteOrNull, type Interval } from './types.ts';

/**
 * Intraclass correlations of Shrout & Fleiss (1979), in McGraw & Wong's (1996) terms:
 * ICC1 one-way random (absolute agreement), ICC2 two-way random (absolute agreement), ICC3 two-way mixed
 * (consistency); the "k" forms are the reliability of the mean of the k raters. F tests and exact
 * F-based confidence bounds as in McGraw & Wong (ICC2 with Satterthwaite's df), matching R psych::ICC.
 * Needs a complete subjects × raters matrix.
 */
export type IccForm = 'ICC1' | 'ICC2' | 'ICC3' | 'ICC1k' | 'ICC2k' | 'ICC3k';
export interface IccEstimate {
  value: number | null;
  ci: [number, number] | null;
  F: number | null;
  p: number | null;
  df1: number;
  df2: number;
}
export type IccResult = Record<IccForm, IccEstimate> & { subjects: number; raters: number; reason?: string };

const FORMS: IccForm[] = ['ICC1', 'ICC2', 'ICC3', 'ICC1k', 'ICC2k', 'ICC3k'];

const ratio = (num: number, den: number): number | null => (den === 0 ? null : finiteOrNull(num / den));

/** Below this share of the total sum of squares a component is rounding residue, not variance. */
const RESIDUE = 1e-12;

const allEqual = (xs: Float64Array): boolean => xs.every((x) => x === xs[0]);

/**
 * The four mean squares, from sums taken about the first rating (a shift changes no sum of squares, and
 * constant data then sums to exactly 0): a mean such as 6 × (1/6) = 0.9999999999999999 would otherwise
 * leave ~1e-32 of residue in every square, and a ratio of two residues (0/0 in truth) reads as an ICC.
 * Identical row (column) sums give SSR (SSC) of exactly 0; SSE and SSW are summed from their residuals,
 * and any component within RESIDUE of the total is 0.
 */
function meanSquares(ratings: readonly (readonly number[])[], n: number, k: number) {
  const y0 = ratings[0]![0]!;
  const rowSum = new Float64Array(n);
  const colSum = new Float64Array(k);
  let total = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < k; j++) {
      const d = ratings[i]![j]! - y0;
      rowSum[i]! += d;
      colSum[j]! += d;
      total += d;
    }
  }
  const grand = total / (n * k);
  const rowMean = rowSum.map((s) => s / k);
  const colMean = colSum.map((s) => s / n);
  let ssr = 0;
  let ssc = 0;
  if (!allEqual(rowSum)) for (let i = 0; i < n; i++) ssr += k * (rowMean[i]! - grand) ** 2;
  if (!allEqual(colSum)) for (let j = 0; j < k; j++) ssc += n * (colMean[j]! - grand) ** 2;
  let sst = 0;
  let sse = 0;
  let ssw = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < k; j++) {
      const d = ratings[i]![j]! - y0;
      sst += (d - grand) ** 2;
      sse += (d - rowMean[i]! - colMean[j]! + grand) ** 2;
      ssw += (d - rowMean[i]!) ** 2;
    }
  }
  const clean = (ss: number) => (ss <= RESIDUE * sst ? 0 : ss);
  return {
    constant: sst === 0,
    msr: clean(ssr) / (n - 1),
    msc: clean(ssc) / (k - 1),
    mse: clean(sse) / ((n - 1) * (k - 1)),
    msw: clean(ssw) / (n * (k - 1)),
  };
}

function validate(ratings: readonly (readonly number[])[]): { n: number; k: number } {
  const n = ratings.length;
  const k = ratings[0]?.length ?? 0;
  ratings.forEach((row, i) => {
    if (!Array.isArray(row) || row.length !== k) throw badInput(`ratings: subject ${i + 1} has ${Array.isArray(row) ? row.length : 0} ratings, subject 1 has ${k} (ICC needs a complete matrix)`);
    row.forEach((y, j) => {
      if (typeof y !== 'number' || !Number.isFinite(y)) throw badInput(`ratings: subject ${i + 1}, rater ${j + 1} is ${JSON.stringify(y)}, expected a number`);
    });
  });
  return { n, k };
}

export function icc(ratings: readonly (readonly number[])[], confidence = 0.95): IccResult {
  checkConfidence(confidence);
  const { n, k } = validate(ratings);
  const df1 = n - 1;
  const dfW = n * (k - 1);
  const dfE = (n - 1) * (k - 1);
  const empty = (df2: number): IccEstimate => ({ value: null, ci: null, F: null, p: null, df1, df2 });
  if (n < 2 || k < 2) {
    const out = Object.fromEntries(FORMS.map((f) => [f, empty(f.startsWith('ICC1') ? dfW : dfE)])) as Record<IccForm, IccEstimate>;
    return { ...out, subjects: n, raters: k, reason: 'need at least 2 subjects and 2 raters' };
  }
  const { constant, msr, msc, mse, msw } = meanSquares(ratings, n, k);
  const upper = 1 - (1 - confidence) / 2;
  const f1 = ratio(msr, msw);
  const f3 = ratio(msr, mse);
  const p1 = f1 === null ? null : fSf(f1, df1, dfW);
  const p3 = f3 === null ? null : fSf(f3, df1, dfE);

  const icc1 = ratio(msr - msw, msr + (k - 1) * msw);
  const icc1k = ratio(msr - msw, msr);
  const icc2 = ratio(msr - mse, msr + (k - 1) * mse + (k * (msc - mse)) / n);
  const icc2k = ratio(msr - mse, msr + (msc - mse) / n);
  const icc3 = ratio(msr - mse, msr + (k - 1) * mse);
  const icc3k = ratio(msr - mse, msr);

  // One-way and consistency bounds: transform F/F_crit through the ICC formula.
  const fBounds = (f: number | null, df2: number): [number, number] | null => {
    if (f === null) return null;
    const lo = f / fQuantile(upper, df1, df2);
    const hi = f * fQuantile(upper, df2, df1);
    return Number.isFinite(lo) && Number.isFinite(hi) ? [lo, hi] : null;
  };
  const single = (b: [number, number] | null): Interval | null => (b ? [(b[0] - 1) / (b[0] + k - 1), (b[1] - 1) / (b[1] + k - 1)] : null);
  // F = 0 (MSR = 0) puts both bounds of the average forms at 1 − 1/0: no interval, as their value is none.
  const average = (b: [number, number] | null): Interval | null => (b && b[0] > 0 ? [1 - 1 / b[0], 1 - 1 / b[1]] : null);
  const b1 = fBounds(f1, dfW);
  const b3 = fBounds(f3, dfE);

  // ICC2: Satterthwaite df for the denominator (McGraw & Wong 1996, Table 7).
  let ci2: Interval | null = null;
  let ci2k: Interval | null = null;
  if (icc2 !== null && mse > 0) {
    const fj = msc / mse;
    const a = icc2;
    const vn = (k - 1) * (n - 1) * (k * a * fj + n * (1 + (k - 1) * a) - k * a) ** 2;
    const vd = (n - 1) * k * k * a * a * fj * fj + (n * (1 + (k - 1) * a) - k * a) ** 2;
    const v = vn / vd;
    if (Number.isFinite(v) && v > 0) {
      const fU = fQuantile(upper, df1, v);
      const fL = fQuantile(upper, v, df1);
      const denom = k * msc + (k * n - k - n) * mse;
      const lo = (n * (msr - fU * mse)) / (fU * denom + n * msr);
      const hi = (n * (fL * msr - mse)) / (denom + n * fL * msr);
      if (Number.isFinite(lo) && Number.isFinite(hi)) {
        ci2 = [lo, hi];
        ci2k = [(lo * k) / (1 + lo * (k - 1)), (hi * k) / (1 + hi * (k - 1))];
      }
    }
  }
  const values: Record<IccForm, number | null> = { ICC1: icc1, ICC2: icc2, ICC3: icc3, ICC1k: icc1k, ICC2k: icc2k, ICC3k: icc3k };
  // Short of constant data a form is null only when MSR = 0 (its denominator msr or msr + (k − 1)·ms is 0).
  const undef = FORMS.filter((f) => values[f] === null);
  const reason = constant
    ? 'every rating is the same (zero variance), so every ICC is 0/0'
    : undef.length
      ? `${undef.join(', ')} undefined: ${msr === 0 ? 'every subject has the same mean rating (MSR = 0), so they divide by 0' : 'a division by 0'}`
      : null;
  return {
    ICC1: { value: icc1, ci: single(b1), F: f1, p: p1, df1, df2: dfW },
    ICC2: { value: icc2, ci: ci2, F: f3, p: p3, df1, df2: dfE },
    ICC3: { value: icc3, ci: single(b3), F: f3, p: p3, df1, df2: dfE },
    ICC1k: { value: icc1k, ci: average(b1), F: f1, p: p1, df1, df2: dfW },
    ICC2k: { value: icc2k, ci: ci2k, F: f3, p: p3, df1, df2: dfE },
    ICC3k: { value: icc3k, ci: average(b3), F: f3, p: p3, df1, df2: dfE },
    subjects: n,
    raters: k,
    ...(reason ? { reason } : {}),
  };
}
