import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { meanPairwiseAbsDifference, orderSensitivity, type ShuffledGrade } from '../../src/analysis/calibration/order-sensitivity.ts';

/**
 * The hand-worked case: members g and c, three samples each, three answers.
 *   answer  g's ok samples     g: |pairs|          mean   c's ok samples     c: |pairs|        mean
 *   a1      .5 .7 .4           .2 .1 .3            .2     .2 .2 .8           0 .6 .6           .4
 *   a2      .9 .9 (failed)     0                   0      .5 (two failed)    — (one sample)    —
 *   a3      .1 .4 .4           .3 .3 0             .2     .3 .6 .3           .3 0 .3           .2
 *   g: answers 3, pairs 3+1+3 = 7, figure (.2 + 0 + .2)/3 = 2/15
 *   c: answers 2, pairs 3+3 = 6, figure (.4 + .2)/2 = .3
 * Intervals (percentile, 95%): c's units are {.4, .2}; a resample of two is all .2 with chance 1/4 and all
 * .4 with chance 1/4, so both 2.5% tails sit on the extremes: [.2, .4]. g's units are {.2, 0, .2}; a resample
 * of three is all 0 with chance 1/27 (3.7% > 2.5%) and all .2 with chance 8/27: [0, .2].
 */
const s = (judge: string, sample: number, completeness: number | null, status = 'ok') => ({ judge, sample, status, completeness });
const grades: ShuffledGrade[] = [
  { answer: 'a1', members: [s('g', 1, 0.5), s('g', 2, 0.7), s('g', 3, 0.4), s('c', 1, 0.2), s('c', 2, 0.2), s('c', 3, 0.8)] },
  { answer: 'a2', members: [s('g', 1, 0.9), s('g', 2, 0.9), s('g', 3, null, 'provider_error'), s('c', 1, 0.5), s('c', 2, null, 'parse_failure'), s('c', 3, null, 'refused')] },
  { answer: 'a3', members: [s('g', 1, 0.1), s('g', 2, 0.4), s('g', 3, 0.4), s('c', 1, 0.3), s('c', 2, 0.6), s('c', 3, 0.3)] },
];

describe('order sensitivity of a shuffled panel', () => {
  it('mean absolute difference over all pairs', () => {
    expect(meanPairwiseAbsDifference([0.5, 0.7, 0.4]).pairs).toBe(3);
    expect(meanPairwiseAbsDifference([0.5, 0.7, 0.4]).value).toBeCloseTo(0.2, 12);
    expect(meanPairwiseAbsDifference([1, 0]).value).toBe(1);
    expect(() => meanPairwiseAbsDifference([1])).toThrow(/at least 2 values/);
  });

  it('the hand-worked case: figures per member with their seeded intervals', () => {
    const r = orderSensitivity(grades, { seed: 11 });
    expect(r).toMatchObject({ grades: 3, seed: 11, resamples: 2000, confidence: 0.95 });
    expect(r.members.map((m) => m.judge)).toEqual(['g', 'c']);
    const [g, c] = r.members as [(typeof r.members)[0], (typeof r.members)[0]];
    expect(g).toMatchObject({ answers: 3, pairs: 7 });
    expect(g.meanAbsDifference).toBeCloseTo(2 / 15, 12);
    expect(g.ci![0]).toBeCloseTo(0, 12);
    expect(g.ci![1]).toBeCloseTo(0.2, 12);
    expect(c).toMatchObject({ answers: 2, pairs: 6 });
    expect(c.meanAbsDifference).toBeCloseTo(0.3, 12);
    expect(c.ci![0]).toBeCloseTo(0.2, 12);
    expect(c.ci![1]).toBeCloseTo(0.4, 12);
    // The same seed gives the same report; the estimate does not depend on the seed.
    expect(orderSensitivity(grades, { seed: 11 })).toEqual(r);
    expect(orderSensitivity(grades, { seed: 12 }).members.map((m) => m.meanAbsDifference)).toEqual(r.members.map((m) => m.meanAbsDifference));
  });

  it('one answer gives the figure without an interval; a member never sampled twice gives none', () => {
    const one = orderSensitivity([grades[0]!], { seed: 1 });
    expect(one.members[1]).toEqual({ judge: 'c', meanAbsDifference: expect.closeTo(0.4, 12), ci: null, answers: 1, pairs: 3, reason: 'one answer: no interval' });
    const single = orderSensitivity([{ answer: 'x', members: [s('g', 1, 0.5), s('h', 1, 0.2)] }], { seed: 1 });
    expect(single.members).toEqual([
      { judge: 'g', meanAbsDifference: null, ci: null, answers: 0, pairs: 0, reason: 'no answer with two ok samples of this member' },
      { judge: 'h', meanAbsDifference: null, ci: null, answers: 0, pairs: 0, reason: 'no answer with two ok samples of this member' },
    ]);
    expect(orderSensitivity([], { seed: 1 })).toEqual({ grades: 0, seed: 1, resamples: 2000, confidence: 0.95, members: [] });
  });

  it('property: samples that agree give 0; the figure is at most the largest spread of any answer', () => {
    const completeness = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(fc.array(fc.array(completeness, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 6 }), (answers) => {
        const gs = answers.map((cs, i) => ({ answer: `a${i}`, members: cs.map((x, k) => s('m', k + 1, x)) }));
        const m = orderSensitivity(gs, { seed: 3, resamples: 50 }).members[0]!;
        const spread = Math.max(...answers.map((cs) => Math.max(...cs) - Math.min(...cs)));
        expect(m.meanAbsDifference!).toBeLessThanOrEqual(spread + 1e-12);
        const flat = orderSensitivity(answers.map((cs, i) => ({ answer: `a${i}`, members: cs.map((_, k) => s('m', k + 1, cs[0]!)) })), { seed: 3, resamples: 50 }).members[0]!;
        expect(flat.meanAbsDifference).toBe(0);
      }),
    );
  });
});
