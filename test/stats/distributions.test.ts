import { describe, expect, it } from 'vitest';
import { binomialHalfTwoSided, fQuantile, fSf, incompleteBeta, inverseIncompleteBeta, lnGamma, tTwoSidedP } from '../../src/stats/beta.ts';
import { erfc, normalCdf, normalQuantile, twoSidedZ } from '../../src/stats/normal.ts';

/** The special functions against closed forms and well-known constants. */

describe('normal distribution', () => {
  it('quantiles to ~1e-15: Φ⁻¹(0.975) = 1.959963984540054, Φ⁻¹(0.995) = 2.5758293035489004', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 14);
    expect(twoSidedZ(0.99)).toBeCloseTo(2.5758293035489004, 14);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0.8413447460685429)).toBeCloseTo(1, 13);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 11);
  });
  it('round-trips Φ(Φ⁻¹(p)) = p across the range, tails included', () => {
    for (const p of [1e-300, 1e-20, 1e-8, 0.001, 0.02425, 0.3, 0.5, 0.77, 0.97575, 0.999, 1 - 1e-12]) {
      const x = normalQuantile(p);
      const back = p < 0.5 ? normalCdf(x) : 1 - normalCdf(-x);
      expect(Math.abs(back - p) / Math.min(p, 1 - p)).toBeLessThan(1e-12);
    }
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
  });
  it('erfc known values: erfc(0) = 1, erfc(1) = 0.15729920705028513, erfc(5) = 1.5374597944280349e-12', () => {
    expect(erfc(0)).toBe(1);
    expect(erfc(1)).toBeCloseTo(0.15729920705028513, 14);
    expect(erfc(5) / 1.5374597944280349e-12).toBeCloseTo(1, 12);
    expect(erfc(-1)).toBeCloseTo(2 - 0.15729920705028513, 14);
  });
});

describe('incomplete beta and the t and F distributions', () => {
  it('closed forms: I_x(a, 1) = x^a, I_x(1, b) = 1 − (1 − x)^b, I_x(1/2, 1/2) = (2/π) asin √x', () => {
    for (const x of [0.01, 0.2, 0.5, 0.9, 0.999]) {
      expect(incompleteBeta(x, 3.5, 1)).toBeCloseTo(x ** 3.5, 14);
      expect(incompleteBeta(x, 1, 7)).toBeCloseTo(1 - (1 - x) ** 7, 14);
      expect(incompleteBeta(x, 0.5, 0.5)).toBeCloseTo((2 / Math.PI) * Math.asin(Math.sqrt(x)), 13);
    }
  });
  it('inverse round-trips', () => {
    for (const [a, b] of [[0.5, 0.5], [2.5, 9], [40, 3], [300, 500]] as const) {
      for (const p of [1e-6, 0.025, 0.5, 0.975]) expect(incompleteBeta(inverseIncompleteBeta(p, a, b), a, b)).toBeCloseTo(p, 12);
    }
  });
  it('t: df 1 is Cauchy, df 2 has p = 1 − t/√(2 + t²)', () => {
    for (const t of [0.1, 1, 3, 30]) {
      expect(tTwoSidedP(t, 1)).toBeCloseTo(1 - (2 / Math.PI) * Math.atan(t), 14);
      expect(tTwoSidedP(t, 2)).toBeCloseTo(1 - t / Math.sqrt(2 + t * t), 14);
    }
  });
  it('F(1, d) is t² and F(2, 2) has P(F > f) = 1/(1 + f)', () => {
    expect(fSf(3.2 ** 2, 1, 9)).toBeCloseTo(tTwoSidedP(3.2, 9), 14);
    for (const f of [0.1, 1, 10]) expect(fSf(f, 2, 2)).toBeCloseTo(1 / (1 + f), 14);
    // Quantile: P(F > q) = 1 − p ⇒ q = 1/(1 − p) − 1 for F(2, 2)
    expect(fQuantile(0.975, 2, 2)).toBeCloseTo(39, 9);
    expect(fQuantile(0.25, 2, 2)).toBeCloseTo(1 / 3, 12);
  });
  it('lnGamma at integers and one half', () => {
    expect(lnGamma(1)).toBeCloseTo(0, 14);
    expect(lnGamma(10)).toBeCloseTo(Math.log(362880), 12);
    expect(lnGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 14);
  });
  it('binomial two-sided tail at p = 1/2', () => {
    expect(binomialHalfTwoSided(0, 10)).toBeCloseTo(2 / 1024, 15);
    expect(binomialHalfTwoSided(2, 10)).toBeCloseTo((2 * (1 + 10 + 45)) / 1024, 14);
    expect(binomialHalfTwoSided(8, 10)).toBeCloseTo((2 * (1 + 10 + 45)) / 1024, 14);
    expect(binomialHalfTwoSided(5, 10)).toBe(1);
  });
});
