import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alphaFromSums, clusterSums, sumAll, type SumsLevel } from '../../src/analysis/calibration/alpha-sums.ts';
import { calibrate } from '../../src/analysis/calibration/index.ts';
import { krippendorffAlpha } from '../../src/stats/krippendorff.ts';
import { mulberry32, randomInt } from '../../src/stats/random.ts';

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

  it('interval: one value throughout is 0/0 (null), not the ratio of two rounding residues', () => {
    // Five raters all saying 0.1 on two units: Σv and Σv² round, so n·Σv² − (Σv)² was ~1e-17, not 0, and
    // alpha came out −0.125; with seven such units −0.86. krippendorffAlpha says null.
    for (const units of [2, 5, 7]) {
      const data = Array.from({ length: 5 }, () => Array(units).fill(0.1));
      expect(krippendorffAlpha(data, 'interval').alpha).toBeNull();
      expect(viaSums('interval', data, 0, (u) => `a${u}`)).toBeNull();
    }
  });

  it('interval: units that each agree within themselves give alpha exactly 1, never past it', () => {
    // Observed disagreement summed as 2mΣv² − 2(Σv)² per unit left a negative residue: alpha 1.0000000000000009.
    const data = Array.from({ length: 3 }, () => [0.7, 0.7, 0.7, 1.1, 1.1, 1.1, 0.9, 0.9, 0.9]);
    expect(krippendorffAlpha(data, 'interval').alpha).toBe(1);
    expect(viaSums('interval', data, 0, (u) => `a${Math.floor(u / 3)}`)).toBe(1);
  });

  it("the numeric human ceiling's interval is the percentile bootstrap of krippendorffAlpha over answers", () => {
    // a0: both people say 0.3 on three items; a1: they disagree. Resamples of a0 alone have one value
    // throughout (alpha undefined, left out); every other resample has alpha ≤ the full data's −0.4856. The
    // interval used to read [−0.8197, 1]: the a0-only resamples came out as alpha 1 (residue over residue).
    const answers: Record<string, [number, number][]> = {
      a0: [[0.3, 0.3], [0.3, 0.3], [0.3, 0.3]],
      a1: [[0.6, 0.3], [0.9, 0.1], [0.7, 0.3]],
    };
    const rows = Object.entries(answers).flatMap(([answer, items]) =>
      items.flatMap((pair, i) => pair.map((label, h) => ({ answer, item: `i${i}`, rater: `h${h + 1}`, kind: 'human' as const, label }))),
    );
    const report = calibrate(rows, { scale: 'numeric', seed: 1 });
    // Reference: resample answers with the seeded generator the stats use, alpha by the coincidence matrix.
    const names = Object.keys(answers);
    const alphaOf = (sample: string[]) => {
      const units = sample.flatMap((a) => answers[a]!);
      return krippendorffAlpha([units.map((u) => u[0]), units.map((u) => u[1])], 'interval').alpha;
    };
    const rng = mulberry32(1);
    const kept: number[] = [];
    for (let r = 0; r < 1000; r++) {
      const a = alphaOf(names.map(() => names[randomInt(rng, names.length)]!));
      if (a !== null) kept.push(a);
    }
    kept.sort((x, y) => x - y);
    const point = alphaOf(names)!;
    expect(point).toBeCloseTo(-0.4855842185128987, 12);
    expect(kept.length).toBeLessThan(1000);
    expect(Math.max(...kept)).toBeCloseTo(point, 12);
    const ci = report.humanCeiling.alpha.ci!;
    expect(report.humanCeiling.alpha.alpha).toBeCloseTo(point, 12);
    expect(ci[0]).toBeCloseTo(-0.8197026022304832, 9);
    expect(ci[1]).toBeCloseTo(point, 9);
  });
});
