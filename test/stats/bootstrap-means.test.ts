import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bootstrapCI } from '../../src/stats/bootstrap.ts';
import { bootstrapMeans } from '../../src/stats/bootstrap-means.ts';

/** The batched mean bootstrap against the reference, bootstrapCI with the mean, column by column. */

const mean = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const reference = (columns: number[][], opts: { seed: number; resamples?: number; confidence?: number }) => columns.map((c) => bootstrapCI(c, mean, opts));

// Doubles of every kind a report column holds (F1 in [0, 1], proximity below 0, errors above 1), -0 included.
const value = fc.oneof(fc.double({ min: -2, max: 2, noNaN: true }), fc.constantFrom(0, -0, 1, 0.5, 1e-300), fc.integer({ min: -5, max: 5 }));
// Several columns, some of equal length (those share their draws), some empty.
const columns = fc.array(
  fc.oneof(fc.array(value, { maxLength: 40 }), fc.constant([] as number[]), fc.array(value, { minLength: 7, maxLength: 7 })),
  { minLength: 1, maxLength: 8 },
);
const seed = fc.oneof(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: -1000, max: 1000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }));

describe('bootstrapMeans', () => {
  it('gives exactly the reference result for every column (estimate, interval, resamples, reason; -0 kept)', () => {
    fc.assert(
      fc.property(columns, seed, fc.integer({ min: 1, max: 60 }), fc.constantFrom(0.95, 0.9, 0.5), (cs, s, resamples, confidence) => {
        const opts = { seed: s, resamples, confidence };
        // toStrictEqual tells -0 from 0 (Object.is), so every double must be the very same.
        expect(bootstrapMeans(cs, opts)).toStrictEqual(reference(cs, opts));
      }),
      { numRuns: 300 },
    );
  });

  it('matches on report-sized columns with the report settings (seed 1, 1000 resamples)', () => {
    const cs = [Array.from({ length: 313 }, (_, i) => ((i * 7919) % 1000) / 1000), Array.from({ length: 313 }, (_, i) => Math.sin(i)), Array.from({ length: 1250 }, (_, i) => (i % 3) / 3)];
    const opts = { seed: 1, resamples: 1000 };
    expect(bootstrapMeans(cs, opts)).toStrictEqual(reference(cs, opts));
  });

  it('gives the reference reasons for columns without an interval', () => {
    // One resample cannot make an interval; a column whose sum overflows has no mean.
    const opts = { seed: 1, resamples: 1 };
    const cs = [[], [Infinity, 1], [1e308, 1e308], [0.5]];
    const got = bootstrapMeans(cs, opts);
    expect(got).toStrictEqual(reference(cs, opts));
    expect(got.map((r) => r.reason)).toEqual(['no units to resample', 'the statistic is undefined on the full sample', 'the statistic is undefined on the full sample', 'the statistic is undefined on almost every resample']);
    // A sum that overflows on some resamples only: those are left out, as the reference leaves them out.
    const mixed = [[1e308, -1e308, 1e308, -1e308, 0.5, 0.25]];
    const many = { seed: 4, resamples: 200 };
    const m = bootstrapMeans(mixed, many)[0]!;
    expect(m).toStrictEqual(reference(mixed, many)[0]);
    expect(m.resamples).toBeGreaterThan(1);
    expect(m.resamples).toBeLessThan(200);
  });

  it('refuses the options the reference refuses', () => {
    expect(() => bootstrapMeans([[1, 2]], { seed: 1, resamples: 0 })).toThrow(/resamples/);
    expect(() => bootstrapMeans([[1, 2]], { seed: Number.NaN })).toThrow(/seed/);
    expect(() => bootstrapMeans([[1, 2]], { seed: 1, confidence: 1.5 })).toThrow();
  });
});
