import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alphaFromSums, clusterSums, sumAll, type SumsLevel } from '../../src/analysis/calibration/alpha-sums.ts';
import { krippendorffAlpha } from '../../src/stats/krippendorff.ts';

/**
 * The bootstrap of the human–human ceiling computes alpha from per-answer coincidence sums; on the full
 * data that must be exactly stats/krippendorff's alpha (an independent implementation by the
 * coincidence-matrix method) for every level the calibration uses.
 */
function viaSums(level: SumsLevel, data: (number | null)[][], V: number, clusterOf: (u: number) => string): number | null {
  const units = data[0]!.map((_, u) => ({ cluster: clusterOf(u), cells: data.map((row) => row[u]!) }));
  return alphaFromSums(sumAll(clusterSums(level, V, units), V), level, V);
}

describe('alpha from additive sums', () => {
  it('matches krippendorffAlpha on random categorical data (nominal and ordinal)', () => {
    const cell = fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 4 });
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }).chain((raters) => fc.array(fc.array(cell, { minLength: raters, maxLength: raters }), { minLength: 1, maxLength: 40 })),
        fc.constantFrom<SumsLevel>('nominal', 'ordinal'),
        (columns, level) => {
          const data = columns[0]!.map((_, r) => columns.map((c) => c[r]!));
          const expected = krippendorffAlpha(data, level, level === 'ordinal' ? { order: [0, 1, 2, 3] } : {}).alpha;
          const got = viaSums(level, data, 4, (u) => `a${u % 5}`);
          if (expected === null) expect(got).toBeNull();
          else expect(got).toBeCloseTo(expected, 10);
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });

  it('matches krippendorffAlpha on random interval data', () => {
    const cell = fc.option(fc.double({ min: -5, max: 5, noNaN: true }), { nil: null, freq: 4 });
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }).chain((raters) => fc.array(fc.array(cell, { minLength: raters, maxLength: raters }), { minLength: 1, maxLength: 40 })),
        (columns) => {
          const data = columns[0]!.map((_, r) => columns.map((c) => c[r]!));
          const expected = krippendorffAlpha(data, 'interval').alpha;
          const got = viaSums('interval', data, 0, (u) => `a${u % 3}`);
          if (expected === null || Math.abs(expected) > 1e6) return; // 0/0 or near-degenerate spread
          expect(got).toBeCloseTo(expected, 6);
        },
      ),
      { seed: 12, numRuns: 300 },
    );
  });

  it('the hand-computed ordinal case: 12247/12800', () => {
    // Points of h1 and h2 on the calibration fixture reduce to 24 (0,0), 14 (½,½), 38 (1,1) and one
    // (½,1) and one (1,½) unit — see calibration.test.ts for the hand computation.
    const pairs: [number, number][] = [...Array(12).fill([0, 0]), ...Array(7).fill([1, 1]), ...Array(19).fill([2, 2]), [1, 2], [2, 1]];
    const data = [pairs.map((p) => p[0]), pairs.map((p) => p[1])];
    expect(viaSums('ordinal', data, 3, (u) => String(u))).toBeCloseTo(12247 / 12800, 12);
  });
});
