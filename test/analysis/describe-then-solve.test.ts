import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeThenSolve, parseDtsJsonl, type DtsRow } from '../../src/analysis/describe-then-solve/index.ts';
import { formatDescribeThenSolve } from '../../src/cli/format/describe-then-solve.ts';
import { FIXTURES } from '../helpers/cli.ts';

/**
 * test/fixtures/describe-then-solve-209.jsonl (made for assay): one model, 209 items p001..p209 in
 * alternating slices small/large; perception ok on the first 90; answer ok on the first 41 and on
 * p091..p105 (15 more). So P(A✓) = 56/209, P(P✓) = 90/209, P(A✓|P✓) = 41/90, P(A✓|P✗) = 15/119.
 * Wilson intervals: (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n), z = 1.959964, computed by hand
 * in Python.
 */
const rows = parseDtsJsonl(readFileSync(`${FIXTURES}describe-then-solve-209.jsonl`, 'utf8'), 'describe-then-solve-209.jsonl');
const report = describeThenSolve(rows);

const pp = (x: number) => Math.round(x * 1000) / 10; // percentage points, 0.1 pp

describe('describe-then-solve — 209 items', () => {
  it('end-to-end accuracy 56/209 = 26.8% [21.2, 33.2]', () => {
    const a = report.overall.answer;
    expect(a.successes).toBe(56);
    expect(a.trials).toBe(209);
    expect(pp(a.estimate!)).toBe(26.8);
    expect(pp(a.ci![0])).toBe(21.2);
    expect(pp(a.ci![1])).toBe(33.2);
  });

  it('perception and the two conditionals', () => {
    const o = report.overall;
    expect(o.n).toBe(209);
    expect([o.perception.successes, o.perception.trials]).toEqual([90, 209]);
    expect(o.perception.ci![0]).toBeCloseTo(0.3653399, 6);
    expect(o.perception.ci![1]).toBeCloseTo(0.4984084, 6);
    expect([o.answerGivenPerception.successes, o.answerGivenPerception.trials]).toEqual([41, 90]);
    expect(o.answerGivenPerception.ci![0]).toBeCloseTo(0.3565962, 6);
    expect(o.answerGivenPerception.ci![1]).toBeCloseTo(0.5581537, 6);
    expect([o.answerGivenNoPerception.successes, o.answerGivenNoPerception.trials]).toEqual([15, 119]);
    expect(o.answerGivenNoPerception.ci![0]).toBeCloseTo(0.0778972, 6);
    expect(o.answerGivenNoPerception.ci![1]).toBeCloseTo(0.1975917, 6);
    // (90/209)(41/90) + (119/209)(15/119) = 56/209.
    expect(o.identity.holds).toBe(true);
    expect(Math.abs(o.identity.residual!)).toBeLessThan(1e-12);
    expect(o.correlation).toBeUndefined();
  });

  it('per model and per slice', () => {
    expect(Object.keys(report.byModel)).toEqual(['vlm-a']);
    expect(report.byModel['vlm-a']!.n).toBe(209);
    // Even indices are "small": 105 items, 45 perceived, 29 answered, 21 of them perceived.
    const small = report.bySlice.small!;
    expect([small.n, small.perception.successes, small.answer.successes, small.answerGivenPerception.successes]).toEqual([105, 45, 29, 21]);
    expect(small.answer.ci![0]).toBeCloseTo(0.1997213, 6);
    expect(report.byModel['vlm-a']!.bySlice.large!.n).toBe(104);
  });

  it('renders percentages with intervals', () => {
    expect(formatDescribeThenSolve(report)).toMatch(/overall\s+209\s+43\.1% \[36\.5, 49\.8\]\s+45\.6% \[35\.7, 55\.8\]\s+12\.6% \[7\.8, 19\.8\]\s+26\.8% \[21\.2, 33\.2\]/);
  });
});

describe('describe-then-solve — edge cases', () => {
  it('a conditional with an empty denominator is null with a reason; the identity still holds', () => {
    const r = describeThenSolve([
      { model: 'm', item: '1', perception: true, answer: true },
      { model: 'm', item: '2', perception: true, answer: false },
    ]);
    expect(r.overall.answerGivenNoPerception).toEqual({ successes: 0, trials: 0, estimate: null, ci: null, reason: 'no items with an incorrect perception' });
    expect(r.overall.identity).toEqual({ lhs: 0.5, rhs: 0.5, residual: 0, holds: true });
  });

  it('numeric scores need a threshold, then count ≥ τ as ok and report correlations', () => {
    const f1 = [0.9, 0.7, 0.4, 0.2, 0.6, 0.1];
    const prox = [0.8, 0.3, 0.6, 0.1, 0.9, 0.0];
    const xs: DtsRow[] = f1.map((p, i) => ({ model: 'm', item: String(i + 1), perception: p, answer: prox[i]!, line: i + 1 }));
    expect(() => describeThenSolve(xs, { source: 'F.jsonl' })).toThrow(
      "F.jsonl: line 1: field 'perception' is a number (0.9) but no threshold is set (use --threshold τ; a score ≥ τ counts as ok)",
    );
    const r = describeThenSolve(xs, { threshold: 0.5 });
    // P✓: items 1, 2, 5; A✓: items 1, 3, 5 → P(A✓|P✓) = 2/3, P(A✓|P✗) = 1/3.
    expect(r.overall.perception.successes).toBe(3);
    expect(r.overall.answerGivenPerception.estimate).toBeCloseTo(2 / 3, 12);
    expect(r.overall.answerGivenNoPerception.estimate).toBeCloseTo(1 / 3, 12);
    expect(r.thresholds).toEqual({ perception: 0.5, answer: 0.5 });
    // scipy.stats.pearsonr / spearmanr on the raw scores.
    expect(r.overall.correlation!.pearson.r).toBeCloseTo(0.7449360520897513, 10);
    expect(r.overall.correlation!.spearman.r).toBeCloseTo(0.7142857142857143, 10);
    // Separate thresholds: τ_P = 0.8 leaves only item 1 perceived.
    const r2 = describeThenSolve(xs, { perceptionThreshold: 0.8, answerThreshold: 0.5 });
    expect(r2.overall.perception.successes).toBe(1);
    expect(r2.overall.answer.successes).toBe(3);
    // A boolean answer with a numeric perception needs only the perception threshold.
    const mixed = xs.map((x) => ({ ...x, answer: (x.answer as number) >= 0.5 }));
    expect(describeThenSolve(mixed, { perceptionThreshold: 0.5 }).overall.answer.successes).toBe(3);
  });

  it('a model or slice named like an Object.prototype member is an ordinary group', () => {
    const r = describeThenSolve([{ model: '__proto__', item: '1', slice: 'constructor', perception: true, answer: true }]);
    expect(Object.keys(r.byModel)).toEqual(['__proto__']);
    expect(Object.keys(r.bySlice)).toEqual(['constructor']);
    expect(r.bySlice['constructor']!.n).toBe(1);
  });

  it('rejects duplicates and malformed rows, naming the line', () => {
    expect(() =>
      describeThenSolve([
        { model: 'm', item: '1', perception: true, answer: true, line: 3 },
        { model: 'm', item: '1', perception: true, answer: false, line: 8 },
      ], { source: 'F.jsonl' }),
    ).toThrow("F.jsonl: line 8: model 'm' item '1' appears twice (first at line 3)");
    expect(() => parseDtsJsonl('{"model":"m","item":"1","perception":"yes","answer":true}', 'F.jsonl')).toThrow(/^F\.jsonl: line 1: field 'perception'/);
    expect(() => parseDtsJsonl('{"model":"m","item":"1","answer":true}\n', 'F.jsonl')).toThrow(/line 1: field 'perception'/);
    expect(() => parseDtsJsonl('\n\n', 'F.jsonl')).toThrow('F.jsonl: empty (no JSON lines)');
    expect(() => describeThenSolve([])).toThrow(/no rows/);
  });

  it('P(A✓) = P(P✓)P(A✓|P✓) + P(P✗)P(A✓|P✗) for any data (property)', () => {
    const row = fc.record({
      model: fc.constantFrom('a', 'b', 'c'),
      slice: fc.option(fc.constantFrom('s1', 's2'), { nil: undefined }),
      perception: fc.oneof(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true })),
      answer: fc.oneof(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true })),
    });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 120 }), fc.double({ min: 0, max: 1, noNaN: true }), (xs, tau) => {
        const input: DtsRow[] = xs.map((x, i) => ({ ...x, item: String(i) }));
        const r = describeThenSolve(input, { threshold: tau });
        const groups = [r.overall, ...Object.values(r.byModel), ...Object.values(r.bySlice), ...Object.values(r.byModel).flatMap((m) => Object.values(m.bySlice))];
        for (const g of groups) {
          expect(g.identity.holds).toBe(true);
          expect(Math.abs(g.identity.residual!)).toBeLessThan(1e-9);
          // The conditionals partition the rows.
          expect(g.answerGivenPerception.trials + g.answerGivenNoPerception.trials).toBe(g.n);
          expect(g.answerGivenPerception.successes + g.answerGivenNoPerception.successes).toBe(g.answer.successes);
        }
        expect(Object.values(r.byModel).reduce((s, m) => s + m.n, 0)).toBe(r.overall.n);
      }),
      { seed: 20261129, numRuns: 200 },
    );
  });
});
