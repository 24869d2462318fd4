import { badInput } from '../domain/errors.ts';
import { countTable, type CountTable } from './agreement.ts';
import { assertSameLength, requireOrderOfText } from './categories.ts';
import { checkConfidence, twoSidedZ } from './normal.ts';
import type { Interval, Label } from './types.ts';

export type { Label } from './types.ts';

/**
 * Chance-corrected agreement of two raters: Cohen's kappa, Scott's pi, Gwet's AC1/AC2, each
 * (po − pe)/(1 − pe) with a different chance term pe. All three work on the k × k table of label
 * pairs, built in a single pass over the labels.
 */

export type KappaWeights = 'none' | 'linear' | 'quadratic';

export interface KappaOptions {
  /** Agreement weights for ordered categories: 1 − |i−j|/(k−1) (linear) or 1 − (i−j)²/(k−1)² (quadratic). */
  weights?: KappaWeights;
  /** Category order (and the set counted); default: every label seen, numbers numerically. Weights on text labels need it. */
  categories?: readonly Label[];
  /** Two-sided confidence of `ci`; default 0.95. */
  confidence?: number;
}

export interface KappaResult {
  kappa: number | null;
  se: number | null;
  ci: [number, number] | null;
  /** Observed share of exact agreement (unweighted), whatever the weights. */
  agreement: number | null;
  n: number;
  categories: Label[];
  reason?: string;
  /** Pairs left out because a label is not in the explicit category list. */
  excluded?: number;
}

const WEIGHT_FUNCTIONS: Record<KappaWeights, (d: number, span: number) => number> = {
  none: (d) => (d === 0 ? 1 : 0),
  linear: (d, span) => 1 - d / span,
  quadratic: (d, span) => 1 - (d * d) / (span * span),
};

export function agreementWeights(k: number, weights: KappaWeights): Float64Array {
  const w = new Float64Array(k * k);
  const span = Math.max(k - 1, 1);
  const f = WEIGHT_FUNCTIONS[weights];
  if (!f) throw badInput(`weights: expected none|linear|quadratic, got '${String(weights)}'`);
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) w[i * k + j] = f(Math.abs(i - j), span);
  return w;
}

export const WEIGHTED_NEEDS_ORDER = "weighted kappa needs the categories' order";

interface Prepared {
  table: CountTable;
  categories: Label[];
  w: Float64Array;
  p: Float64Array; // cell proportions
  row: Float64Array;
  col: Float64Array;
  po: number;
  agreement: number;
}

function prepare(a: readonly Label[], b: readonly Label[], opts: KappaOptions): Prepared {
  assertSameLength(a, b);
  const table = countTable(a, b, opts.categories);
  const { k, n, counts, categories } = table;
  if ((opts.weights ?? 'none') !== 'none' && !opts.categories) requireOrderOfText(categories, WEIGHTED_NEEDS_ORDER, 'pass categories');
  const w = agreementWeights(k, opts.weights ?? 'none');
  const p = new Float64Array(k * k);
  const row = new Float64Array(k);
  const col = new Float64Array(k);
  // po from the integer counts, divided once: Σ (count/n) rounds (six items over five categories summed to
  // 0.9999999999999999), and perfect agreement read as kappa 0.9999999999999996 with a nonzero SE.
  let weighted = 0;
  let diag = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const c = counts[i * k + j]!;
      const v = n > 0 ? c / n : 0;
      p[i * k + j] = v;
      row[i]! += v;
      col[j]! += v;
      weighted += w[i * k + j]! * c;
      if (i === j) diag += c;
    }
  }
  const po = n > 0 ? weighted / n : 0;
  return { table, categories, w, p, row, col, po, agreement: n > 0 ? diag / n : 0 };
}

function base(prep: Prepared): Pick<KappaResult, 'n' | 'categories' | 'agreement' | 'excluded'> {
  const out: Pick<KappaResult, 'n' | 'categories' | 'agreement' | 'excluded'> = {
    n: prep.table.n,
    categories: prep.categories,
    agreement: prep.table.n > 0 ? prep.agreement : null,
  };
  if (prep.table.excluded > 0) out.excluded = prep.table.excluded;
  return out;
}

function undefinedResult(prep: Prepared, reason: string): KappaResult {
  return { kappa: null, se: null, ci: null, ...base(prep), reason };
}

function finish(prep: Prepared, kappa: number, variance: number, confidence: number): KappaResult {
  const se = Number.isFinite(variance) ? Math.sqrt(Math.max(variance, 0)) : null;
  const z = twoSidedZ(confidence);
  // The Wald interval clipped to the coefficient's range: kappa ≤ 1 always, so a bound past ±1 (a
  // near-perfect kappa with a wide SE) is an artefact of the normal approximation, never a value.
  const ci: Interval | null = se === null ? null : [Math.max(-1, kappa - z * se), Math.min(1, kappa + z * se)];
  return { kappa, se, ci, ...base(prep) };
}

/** No pairs, or chance agreement of 1, leaves the coefficient undefined (0/0). */
function undefinedReason(prep: Prepared, pe: number): string | null {
  if (prep.table.n === 0) return prep.table.excluded > 0 ? 'no pairs with both labels among the categories' : 'no pairs to compare';
  if (pe >= 1 - 1e-12) return 'chance agreement is 1 (all labels fall in a single category), so the coefficient is 0/0';
  return null;
}

/**
 * Cohen's kappa (weighted when `weights` is linear or quadratic). The standard error is the
 * large-sample SE under the alternative (non-null) of Fleiss, Cohen & Everitt (1969) — the "ASE" of
 * SAS PROC FREQ and the variance of R psych::cohen.kappa — and the interval is kappa ± z·SE (Wald,
 * clipped to [−1, 1], as the interval of any kappa cannot leave it).
 */
export function cohenKappa(a: readonly Label[], b: readonly Label[], opts: KappaOptions = {}): KappaResult {
  const confidence = checkConfidence(opts.confidence ?? 0.95);
  const prep = prepare(a, b, opts);
  const { w, p, row, col, po } = prep;
  const k = prep.categories.length;
  let pe = 0;
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) pe += w[i * k + j]! * row[i]! * col[j]!;
  const reason = undefinedReason(prep, pe);
  if (reason) return undefinedResult(prep, reason);
  const kappa = (po - pe) / (1 - pe);
  // w̄_i. = Σ_j p_.j w_ij and w̄_.j = Σ_i p_i. w_ij
  const wRow = new Float64Array(k);
  const wCol = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      wRow[i]! += col[j]! * w[i * k + j]!;
      wCol[j]! += row[i]! * w[i * k + j]!;
    }
  }
  // FCE: var = [Σ p_ij d_ij² − (κ − pe(1 − κ))²] / (n(1 − pe)²) with d_ij = w_ij − (w̄_i. + w̄_.j)(1 − κ).
  // Since Σ p_ij d_ij = κ − pe(1 − κ), the bracket is the p-weighted variance of d; summing centred
  // squares keeps it ≥ 0 and exact at κ = 1 instead of cancelling two nearly equal numbers.
  const t = kappa - pe * (1 - kappa);
  let s = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const pij = p[i * k + j]!;
      if (pij === 0) continue;
      const d = w[i * k + j]! - (wRow[i]! + wCol[j]!) * (1 - kappa) - t;
      s += pij * d * d;
    }
  }
  const variance = s / (prep.table.n * (1 - pe) * (1 - pe));
  return finish(prep, kappa, variance, confidence);
}

/**
 * Gwet's linearised variance (Handbook of Inter-Rater Reliability, 4th ed., ch. 5; R irrCAC) for
 * coefficients whose chance term is a function of the pooled category shares π: each pair (i, j)
 * contributes κ*_ij = (w_ij − pe)/(1 − pe) − 2(1 − κ)(pe_ij − pe)/(1 − pe), and
 * var = Σ n_ij (κ*_ij − κ)² / n² — the divisor of irrCAC's scott2.table and gwet.ac1.table, whose
 * published SEs this reproduces (the raw-data functions use n(n − 1)).
 */
function linearisedVariance(prep: Prepared, kappa: number, pe: number, peOfPair: (i: number, j: number) => number): number {
  const { k, n, counts } = prep.table;
  if (n < 2) return NaN;
  let s = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const c = counts[i * k + j]!;
      if (c === 0) continue;
      const ki = (prep.w[i * k + j]! - pe) / (1 - pe) - (2 * (1 - kappa) * (peOfPair(i, j) - pe)) / (1 - pe);
      s += c * (ki - kappa) * (ki - kappa);
    }
  }
  return s / (n * n);
}

function pooledShares(prep: Prepared): Float64Array {
  const k = prep.categories.length;
  const pi = new Float64Array(k);
  for (let i = 0; i < k; i++) pi[i] = (prep.row[i]! + prep.col[i]!) / 2;
  return pi;
}

/** Scott's pi: chance from the pooled category shares π of both raters, pe = Σ w_ij π_i π_j. */
export function scottPi(a: readonly Label[], b: readonly Label[], opts: KappaOptions = {}): KappaResult {
  const confidence = checkConfidence(opts.confidence ?? 0.95);
  const prep = prepare(a, b, opts);
  const k = prep.categories.length;
  const pi = pooledShares(prep);
  const wPi = new Float64Array(k); // (Wπ)_i
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) wPi[i]! += prep.w[i * k + j]! * pi[j]!;
  let pe = 0;
  for (let i = 0; i < k; i++) pe += pi[i]! * wPi[i]!;
  const reason = undefinedReason(prep, pe);
  if (reason) return undefinedResult(prep, reason);
  const kappa = (prep.po - pe) / (1 - pe);
  const variance = linearisedVariance(prep, kappa, pe, (i, j) => (wPi[i]! + wPi[j]!) / 2);
  return finish(prep, kappa, variance, confidence);
}

/**
 * Gwet's AC1 (no weights) or AC2 (linear/quadratic weights): pe = T_w/(q(q−1)) Σ_k π_k(1 − π_k), with
 * T_w the sum of all agreement weights and q the number of categories; stable when one category
 * dominates, where kappa and pi collapse.
 */
export function gwetAC(a: readonly Label[], b: readonly Label[], opts: KappaOptions = {}): KappaResult {
  const confidence = checkConfidence(opts.confidence ?? 0.95);
  const prep = prepare(a, b, opts);
  const q = prep.categories.length;
  if (prep.table.n > 0 && q < 2) return undefinedResult(prep, "Gwet's AC needs at least two categories (pass the category list)");
  const pi = pooledShares(prep);
  let tw = 0;
  for (let i = 0; i < q * q; i++) tw += prep.w[i]!;
  const scale = q >= 2 ? tw / (q * (q - 1)) : 0;
  let pe = 0;
  for (let i = 0; i < q; i++) pe += pi[i]! * (1 - pi[i]!);
  pe *= scale;
  const reason = undefinedReason(prep, pe);
  if (reason) return undefinedResult(prep, reason);
  const kappa = (prep.po - pe) / (1 - pe);
  const variance = linearisedVariance(prep, kappa, pe, (i, j) => (scale * (1 - pi[i]! + (1 - pi[j]!))) / 2);
  return finish(prep, kappa, variance, confidence);
}
