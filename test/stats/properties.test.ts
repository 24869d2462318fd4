import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bootstrapCI, bootstrapClustered } from '../../src/stats/bootstrap.ts';
import { cohenKappa, gwetAC, scottPi } from '../../src/stats/kappa.ts';
import { krippendorffAlpha } from '../../src/stats/krippendorff.ts';
import { wilson } from '../../src/stats/wilson.ts';
import { kendallS } from '../../src/stats/correlation.ts';

/** Invariants every correct implementation must satisfy, on random inputs. */

const labels = fc.constantFrom('a', 'b', 'c', 'd');
const pairs = fc.array(fc.tuple(labels, labels), { minLength: 2, maxLength: 60 });
const weights = fc.constantFrom('none', 'linear', 'quadratic' as const);
// Weights on text labels need their order (text has none of its own); unweighted runs keep the labels' own set.
const withWeights = (w: 'none' | 'linear' | 'quadratic') => (w === 'none' ? { weights: w } : { weights: w, categories: ['a', 'b', 'c', 'd'] });

describe('kappa family', () => {
  it("Cohen's kappa, Scott's pi and Gwet's AC are symmetric in the two raters", () => {
    fc.assert(
      fc.property(pairs, weights, (ps, w) => {
        const a = ps.map((p) => p[0]);
        const b = ps.map((p) => p[1]);
        for (const f of [cohenKappa, scottPi, gwetAC]) {
          const ab = f(a, b, withWeights(w));
          const ba = f(b, a, withWeights(w));
          if (ab.kappa === null) expect(ba.kappa).toBeNull();
          else {
            expect(ba.kappa).toBeCloseTo(ab.kappa, 12);
            expect(ba.se ?? NaN).toBeCloseTo(ab.se ?? NaN, 12);
          }
        }
      }),
    );
  });

  it('identical labels with at least two categories give 1 (and SE 0)', () => {
    fc.assert(
      fc.property(fc.array(labels, { minLength: 2, maxLength: 60 }).filter((xs) => new Set(xs).size >= 2), weights, (xs, w) => {
        for (const f of [cohenKappa, scottPi, gwetAC]) {
          const r = f(xs, xs, withWeights(w));
          expect(r.kappa).toBeCloseTo(1, 12);
          expect(r.agreement).toBe(1);
          expect(r.se).toBeCloseTo(0, 12);
        }
      }),
    );
  });

  it('unweighted kappa is invariant to renaming categories; never NaN', () => {
    const rename: Record<string, number> = { a: 40, b: 7, c: -3, d: 1000 };
    fc.assert(
      fc.property(pairs, (ps) => {
        const a = ps.map((p) => p[0]);
        const b = ps.map((p) => p[1]);
        const r1 = cohenKappa(a, b);
        const r2 = cohenKappa(a.map((x) => rename[x]!), b.map((x) => rename[x]!));
        if (r1.kappa === null) {
          expect(r2.kappa).toBeNull();
          expect(r1.reason).toMatch(/\S/);
        } else expect(r2.kappa).toBeCloseTo(r1.kappa, 12);
        for (const v of [r1.kappa, r1.se, r1.agreement]) expect(Number.isNaN(v)).toBe(false);
      }),
    );
  });

  it('kappa ≤ 1; its interval lies in [-1, 1], holds it, and is centred on it unless a bound is clipped', () => {
    fc.assert(
      fc.property(pairs, weights, (ps, w) => {
        const r = cohenKappa(ps.map((p) => p[0]), ps.map((p) => p[1]), withWeights(w));
        if (r.kappa === null) return;
        expect(r.kappa).toBeLessThanOrEqual(1 + 1e-12);
        const [lo, hi] = r.ci!;
        expect(lo).toBeGreaterThanOrEqual(-1);
        expect(hi).toBeLessThanOrEqual(1);
        expect(lo).toBeLessThanOrEqual(r.kappa + 1e-12);
        expect(hi).toBeGreaterThanOrEqual(r.kappa - 1e-12);
        if (lo > -1 && hi < 1) expect((lo + hi) / 2).toBeCloseTo(r.kappa, 12);
        else expect(Math.min(r.kappa - lo, hi - r.kappa)).toBeLessThanOrEqual(Math.max(r.kappa - lo, hi - r.kappa) + 1e-12);
      }),
    );
  });
});

describe("Krippendorff's alpha", () => {
  const matrix = fc.integer({ min: 2, max: 5 }).chain((raters) =>
    fc.array(fc.array(fc.option(fc.integer({ min: 1, max: 5 }), { nil: null, freq: 4 }), { minLength: raters, maxLength: raters }), { minLength: 2, maxLength: 30 }),
  );

  it('is 1 under perfect agreement at every level (when values vary)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 2, maxLength: 30 }).filter((v) => new Set(v).size >= 2), fc.integer({ min: 2, max: 5 }), (units, raters) => {
        const data = Array.from({ length: raters }, () => units);
        for (const level of ['nominal', 'ordinal', 'interval', 'ratio'] as const) expect(krippendorffAlpha(data, level).alpha).toBeCloseTo(1, 12);
      }),
    );
  });

  it('nominal alpha is invariant to relabelling categories (numbers ↔ strings, any order)', () => {
    const names = ['zeta', 'alpha', 'mu', 'beta', 'omega'];
    fc.assert(
      fc.property(matrix, (unitsByRater) => {
        const data = unitsByRater[0]!.map((_, r) => unitsByRater.map((unit) => unit[r]!)); // raters × units
        const relabelled = data.map((row) => row.map((v) => (v === null ? null : names[v - 1]!)));
        const x = krippendorffAlpha(data, 'nominal');
        const y = krippendorffAlpha(relabelled, 'nominal');
        if (x.alpha === null) expect(y.alpha).toBeNull();
        else expect(y.alpha).toBeCloseTo(x.alpha, 12);
      }),
    );
  });

  it('interval alpha is invariant to shifting and scaling the values', () => {
    fc.assert(
      fc.property(matrix, (unitsByRater) => {
        const data = unitsByRater[0]!.map((_, r) => unitsByRater.map((unit) => unit[r]!));
        const moved = data.map((row) => row.map((v) => (v === null ? null : 3 * v - 17)));
        const x = krippendorffAlpha(data, 'interval').alpha;
        const y = krippendorffAlpha(moved, 'interval').alpha;
        if (x === null) expect(y).toBeNull();
        else expect(y).toBeCloseTo(x, 9);
      }),
    );
  });
});

describe('Wilson interval', () => {
  it('lies within [0, 1] and contains p̂, at any confidence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.5, max: 0.9999, noNaN: true }), (n, share, conf) => {
        const k = Math.round(share * n);
        const r = wilson(k, n, conf);
        const [lo, hi] = r.ci!;
        expect(lo).toBeGreaterThanOrEqual(0);
        expect(hi).toBeLessThanOrEqual(1);
        expect(lo).toBeLessThanOrEqual(r.estimate! + 1e-12);
        expect(hi).toBeGreaterThanOrEqual(r.estimate! - 1e-12);
      }),
    );
  });

  it('widens with confidence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 0, max: 500 }), (n, k0) => {
        const k = Math.min(k0, n);
        const a = wilson(k, n, 0.9).ci!;
        const b = wilson(k, n, 0.99).ci!;
        expect(b[0]).toBeLessThanOrEqual(a[0] + 1e-15);
        expect(b[1]).toBeGreaterThanOrEqual(a[1] - 1e-15);
      }),
    );
  });
});

describe('bootstrap', () => {
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

  it('is reproducible for a seed and differs across seeds', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: 5, maxLength: 40 }).filter((xs) => new Set(xs).size > 2), fc.integer(), (xs, seed) => {
        const a = bootstrapCI(xs, mean, { seed, resamples: 200 });
        const b = bootstrapCI(xs, mean, { seed, resamples: 200 });
        expect(b).toEqual(a);
        expect(a.ci![0]).toBeLessThanOrEqual(a.ci![1]);
      }),
      { numRuns: 30 },
    );
    const xs = Array.from({ length: 50 }, (_, i) => (i * 37) % 11);
    expect(bootstrapCI(xs, mean, { seed: 1 }).ci).not.toEqual(bootstrapCI(xs, mean, { seed: 2 }).ci);
  });

  it('clustered resampling is reproducible and keeps clusters whole', () => {
    const units = Array.from({ length: 60 }, (_, i) => ({ answer: Math.floor(i / 3), ok: i % 3 === 0 ? 1 : 0 }));
    const seen: number[] = [];
    const stat = (s: readonly { answer: number; ok: number }[]) => {
      const counts = new Map<number, number>();
      for (const u of s) counts.set(u.answer, (counts.get(u.answer) ?? 0) + 1);
      for (const c of counts.values()) seen.push(c % 3);
      return mean(s.map((u) => u.ok));
    };
    const a = bootstrapClustered(units, (u) => u.answer, stat, { seed: 7, resamples: 100 });
    expect(seen.every((r) => r === 0)).toBe(true);
    expect(bootstrapClustered(units, (u) => u.answer, stat, { seed: 7, resamples: 100 })).toEqual(a);
    // Every cluster has exactly one success in three, so the statistic cannot move.
    expect(a.ci).toEqual([1 / 3, 1 / 3]);
  });
});

describe('Kendall S by merge sort', () => {
  it('equals the O(n²) count of concordant minus discordant pairs, ties included', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 })), { minLength: 0, maxLength: 80 }), (ps) => {
        const x = ps.map((p) => p[0]);
        const y = ps.map((p) => p[1]);
        let s = 0;
        for (let i = 0; i < x.length; i++) for (let j = i + 1; j < x.length; j++) s += Math.sign(x[j]! - x[i]!) * Math.sign(y[j]! - y[i]!);
        expect(kendallS(x, y)).toBe(s);
      }),
      { numRuns: 300 },
    );
  });
});
