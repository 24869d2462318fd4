import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reliabilityDiagram } from '../../src/analysis/calibration/reliability.ts';

/**
 * Hand-worked, 4 bins of width 0.25:
 *   point   conf   agrees   bin
 *   p1      0.1    no       [0, .25)
 *   p2      0.2    yes      [0, .25)
 *   p3      0.6    yes      [.5, .75)
 *   p4      0.7    no       [.5, .75)
 *   p5      0.7    yes      [.5, .75)
 *   p6      0.9    yes      [.75, 1]
 *   p7      1.0    yes      [.75, 1]   (the last bin is closed)
 *   p8      0.25   no       [.25, .5)  (a bin's lower edge belongs to it)
 * Bins: n = 2, 1, 3, 2; mean confidence .15, .25, 2/3, .95; agreement .5, 0, 2/3, 1.
 * ECE = 2/8·|.5 − .15| + 1/8·|0 − .25| + 3/8·|2/3 − 2/3| + 2/8·|1 − .95| = .0875 + .03125 + 0 + .0125 = .13125
 */
const P = (confidence: number, agrees: boolean) => ({ confidence, agrees });
const points = [P(0.1, false), P(0.2, true), P(0.6, true), P(0.7, false), P(0.7, true), P(0.9, true), P(1, true), P(0.25, false)];

describe('reliability diagram', () => {
  it('the hand-worked case', () => {
    const r = reliabilityDiagram(points, 4);
    expect(r.n).toBe(8);
    expect(r.bins.map((b) => [b.lo, b.hi, b.n])).toEqual([
      [0, 0.25, 2],
      [0.25, 0.5, 1],
      [0.5, 0.75, 3],
      [0.75, 1, 2],
    ]);
    const close = (xs: Array<number | null>, want: number[]) => xs.forEach((x, i) => expect(x).toBeCloseTo(want[i]!, 12));
    close(r.bins.map((b) => b.meanConfidence), [0.15, 0.25, 2 / 3, 0.95]);
    close(r.bins.map((b) => b.agreement), [0.5, 0, 2 / 3, 1]);
    expect(r.ece).toBeCloseTo(0.13125, 12);
  });

  it('default 10 bins; empty bins are null; no points → ece null', () => {
    const r = reliabilityDiagram([P(0.95, true), P(0.05, false)]);
    expect(r.bins).toHaveLength(10);
    expect(r.bins[0]).toEqual({ lo: 0, hi: 0.1, n: 1, meanConfidence: 0.05, agreement: 0 });
    expect(r.bins[5]).toEqual({ lo: 0.5, hi: 0.6, n: 0, meanConfidence: null, agreement: null });
    expect(r.bins[9]!.n).toBe(1);
    // |0 − .05|/2 + |1 − .95|/2
    expect(r.ece).toBeCloseTo(0.05, 12);
    expect(reliabilityDiagram([], 5)).toEqual({ bins: [0, 1, 2, 3, 4].map((i) => ({ lo: i / 5, hi: (i + 1) / 5, n: 0, meanConfidence: null, agreement: null })), n: 0, ece: null });
  });

  it('refuses confidences outside [0, 1] and bad bin counts', () => {
    expect(() => reliabilityDiagram([P(1.2, true)])).toThrow(/points\[0\]\.confidence must be a number from 0 to 1, got 1.2/);
    expect(() => reliabilityDiagram([P(Number.NaN, true)])).toThrow(/confidence must be a number/);
    expect(() => reliabilityDiagram(points, 0)).toThrow(/bins must be a whole number from 1 to 100, got 0/);
    expect(() => reliabilityDiagram(points, 2.5)).toThrow(/bins must be a whole number/);
  });

  it('properties: counts add up; one bin gives ECE = |agreement − mean confidence|; perfect confidence gives 0', () => {
    const pts = fc.array(fc.record({ confidence: fc.double({ min: 0, max: 1, noNaN: true }), agrees: fc.boolean() }), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(pts, fc.integer({ min: 1, max: 20 }), (ps, bins) => {
        const r = reliabilityDiagram(ps, bins);
        expect(r.bins.reduce((s, b) => s + b.n, 0)).toBe(ps.length);
        expect(r.ece!).toBeGreaterThanOrEqual(0);
        expect(r.ece!).toBeLessThanOrEqual(1 + 1e-12);
        const one = reliabilityDiagram(ps, 1);
        const meanC = ps.reduce((s, p) => s + p.confidence, 0) / ps.length;
        const agr = ps.filter((p) => p.agrees).length / ps.length;
        expect(one.ece).toBeCloseTo(Math.abs(agr - meanC), 10);
        // Confidence 1 on agreeing items and 0 on the others is perfectly calibrated.
        expect(reliabilityDiagram(ps.map((p) => ({ confidence: p.agrees ? 1 : 0, agrees: p.agrees })), bins).ece).toBe(0);
      }),
    );
  });
});
