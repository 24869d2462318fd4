import { badInput } from '../domain/errors.ts';
import { lnGamma } from './beta.ts';

/**
 * The standard normal distribution to near machine precision. simple-statistics' `probit` and
 * `cumulativeStdNormalProbability` are table/approximation based (about 1e-4 and worse in the tails),
 * which is not enough for reproducing published intervals, so the pieces are built here from the
 * regularized incomplete gamma function: erfc(x) = Q(1/2, x²).
 */

const EPS = 1e-16;
const FPMIN = 1e-300;

/** Regularized lower incomplete gamma P(a, x) by its series (converges fast for x < a + 1). */
function gammaPSeries(a: number, x: number): number {
  let ap = a;
  let del = 1 / a;
  let sum = del;
  for (let i = 0; i < 10_000; i++) {
    ap += 1;
    del *= x / ap;
    sum += del;
    if (Math.abs(del) < Math.abs(sum) * EPS) break;
  }
  return sum * Math.exp(-x + a * Math.log(x) - lnGamma(a));
}

/** Regularized upper incomplete gamma Q(a, x) by its continued fraction (modified Lentz), x ≥ a + 1. */
function gammaQFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / FPMIN;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = b + an / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return Math.exp(-x + a * Math.log(x) - lnGamma(a)) * h;
}

/** Regularized upper incomplete gamma Q(a, x) = Γ(a, x)/Γ(a). */
export function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  return x < a + 1 ? 1 - gammaPSeries(a, x) : gammaQFraction(a, x);
}

/** Complementary error function, accurate in relative terms far into the upper tail. */
export function erfc(x: number): number {
  if (x >= 0) return gammaQ(0.5, x * x);
  return 2 - gammaQ(0.5, x * x);
}

/** Φ(z), the standard normal CDF. */
export function normalCdf(z: number): number {
  return z < 0 ? 0.5 * erfc(-z / Math.SQRT2) : 1 - 0.5 * erfc(z / Math.SQRT2);
}

/** 1 − Φ(z), without cancellation for large z. */
export function normalSf(z: number): number {
  return normalCdf(-z);
}

/** Two-sided p-value of a standard normal statistic. */
export function normalTwoSidedP(z: number): number {
  return Math.min(1, erfc(Math.abs(z) / Math.SQRT2));
}

// Acklam's rational approximation (relative error 1.15e-9) as the starting point.
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

function acklam(p: number): number {
  const [a0, a1, a2, a3, a4, a5] = A as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = B as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = C as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = D as [number, number, number, number];
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  if (p > 1 - P_LOW) return -acklam(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

/**
 * Φ⁻¹(p): Acklam's approximation polished by two Halley steps against the accurate CDF, which brings
 * it to about 1e-15 (Φ⁻¹(0.975) = 1.959963984540054). Outside (0, 1) there is no finite answer.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  let x = acklam(p);
  for (let i = 0; i < 2; i++) {
    // Work in the tail that has relative precision.
    const e = x < 0 ? normalCdf(x) - p : (1 - p) - normalSf(x);
    const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
    x = x - u / (1 + (x * u) / 2);
  }
  return x;
}

/** A two-sided confidence level must lie strictly between 0 and 1 (0.95, not 95). */
export function checkConfidence(confidence: number): number {
  if (!(confidence > 0 && confidence < 1)) throw badInput(`confidence must be strictly between 0 and 1, got ${confidence}`);
  return confidence;
}

/** The z for a two-sided interval at `confidence` (0.95 → 1.959963984540054). */
export function twoSidedZ(confidence: number): number {
  return normalQuantile(1 - (1 - checkConfidence(confidence)) / 2);
}
