/**
 * Log-gamma, the regularized incomplete beta function and the t and F distributions built on it
 * (p-values of correlations, ICC F tests and their confidence bounds). simple-statistics has no
 * incomplete beta, so it lives here.
 */

// Lanczos approximation, g = 7, n = 9: about 15 significant digits for x > 0.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lnGamma(1 - x);
  const z = x - 1;
  let s = LANCZOS[0]!;
  for (let i = 1; i < 9; i++) s += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(s);
}

const EPS = 1e-16;
const FPMIN = 1e-300;

/** Continued fraction of the incomplete beta (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < FPMIN) d = FPMIN;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < 100_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = 1 + aa / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = 1 + aa / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return h;
}

/** Regularized incomplete beta I_x(a, b) for a, b > 0 and 0 ≤ x ≤ 1. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  const front = Math.exp(lnFront);
  // The fraction converges quickly only on one side of the mean; use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a).
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(a, b, x)) / a;
  return 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** Inverse of I_x(a, b) in x by bisection (monotone, robust; only a few calls per report). */
export function inverseIncompleteBeta(p: number, a: number, b: number): number {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 1100 && hi - lo > 1e-17 * Math.max(lo, 1e-300); i++) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (incompleteBeta(mid, a, b) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Two-sided p-value of Student's t with `df` degrees of freedom. */
export function tTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return Math.min(1, incompleteBeta(df / (df + t * t), df / 2, 0.5));
}

/** P(F > f) for the F distribution with (d1, d2) degrees of freedom. */
export function fSf(f: number, d1: number, d2: number): number {
  if (f <= 0) return 1;
  if (!Number.isFinite(f)) return 0;
  return incompleteBeta(d2 / (d2 + d1 * f), d2 / 2, d1 / 2);
}

/** The p-quantile of F(d1, d2) (R's qf), computed from the tail that keeps precision. */
export function fQuantile(p: number, d1: number, d2: number): number {
  if (p <= 0) return 0;
  if (p >= 1) return Infinity;
  if (!Number.isFinite(d2)) {
    // F(d1, ∞) is χ²(d1)/d1; a very large d2 is close enough and keeps one code path.
    d2 = 1e12;
  }
  if (p > 0.5) {
    // 1 − p = I_y(d2/2, d1/2) with y = d2/(d2 + d1 F).
    const y = inverseIncompleteBeta(1 - p, d2 / 2, d1 / 2);
    return (d2 * (1 - y)) / (d1 * y);
  }
  const x = inverseIncompleteBeta(p, d1 / 2, d2 / 2);
  return (d2 * x) / (d1 * (1 - x));
}

/** Two-sided exact binomial tail for p = 1/2: min(1, 2·P(X ≤ k)), X ~ Bin(n, 1/2). */
export function binomialHalfTwoSided(k: number, n: number): number {
  if (n === 0) return 1;
  const lo = Math.min(k, n - k);
  if (2 * lo === n) return 1;
  // P(X ≤ lo) = I_{1/2}(n − lo, lo + 1)
  return Math.min(1, 2 * incompleteBeta(0.5, n - lo, lo + 1));
}
