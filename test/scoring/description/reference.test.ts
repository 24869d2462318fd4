import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Rubric } from '../../../src/domain/rubric.ts';
import { CLAIM_VERDICTS, ITEM_VERDICTS, type Verdicts } from '../../../src/domain/verdicts.ts';
import { scoreDescriptionBatch } from '../../../src/scoring/description/batch.ts';
import { parseRubric } from '../../../src/scoring/description/rubric.ts';
import { scoreDescription } from '../../../src/scoring/description/score.ts';
import { badInputMessage } from '../../helpers/errors.ts';

/**
 * scoreDescription against a reference written from design §2.1 alone (weights as integer numerators
 * over one denominator, so the expected ratio is computed without the scorer's float sums), and the
 * batch aggregate against the mean of the single scores.
 */
const POINTS2: Record<string, number> = { correct: 2, partial: 1, incorrect: 0, missing: 0 }; // points × 2

function reference(weights: number[], verdicts: Array<string | null>, claims: string[], exclude: boolean) {
  const earned2 = weights.reduce((s, w, i) => s + w * POINTS2[verdicts[i] ?? 'missing']!, 0);
  const possible2 = 2 * weights.reduce((s, w) => s + w, 0);
  const c = earned2 / possible2;
  const t = claims.filter((x) => x === 'true').length;
  const d = claims.filter((x) => x === 'true' || x === 'false' || (!exclude && x === 'unverifiable')).length;
  const r = d === 0 ? 0 : t / d;
  return { completeness: c, correctness: r, f1: c + r === 0 ? 0 : (2 * c * r) / (c + r) };
}

const rubricOf = (weights: number[], scale: number): Rubric => ({
  id: 'ref',
  title: 'Ref',
  reference: 'r',
  items: weights.map((w, i) => ({ id: `i${i}`, text: `item ${i}`, weight: w * scale })),
});

const setArb = fc.integer({ min: 1, max: 10 }).chain((n) =>
  fc.record({
    weights: fc.array(fc.integer({ min: 1, max: 20 }), { minLength: n, maxLength: n }),
    verdicts: fc.array(fc.option(fc.constantFrom(...ITEM_VERDICTS)), { minLength: n, maxLength: n }),
    claims: fc.array(fc.constantFrom(...CLAIM_VERDICTS), { maxLength: 12 }),
    order: fc.array(fc.nat(), { minLength: n, maxLength: n }),
  }),
);

const verdictsOf = (v: Array<string | null>, claims: string[], order: number[]): Verdicts => {
  const listed = v.flatMap((x, i) => (x === null ? [] : [{ id: `i${i}`, verdict: x as Verdicts['items'][number]['verdict'], key: order[i]! }]));
  listed.sort((a, b) => a.key - b.key); // the order the verdicts are listed in never matters
  return { items: listed.map(({ id, verdict }) => ({ id, verdict })), claims: claims.map((verdict) => ({ verdict: verdict as Verdicts['claims'][number]['verdict'] })) };
};

describe('scoreDescription equals the design §2.1 reference', () => {
  it('every mix of verdicts, unlisted items, claims, both policies and any weight scale (seeded)', () => {
    fc.assert(
      fc.property(setArb, fc.boolean(), fc.constantFrom(1, 0.001, 1e-200, 1e200, 1e300), ({ weights, verdicts, claims, order }, exclude, scale) => {
        const s = scoreDescription(rubricOf(weights, scale), verdictsOf(verdicts, claims, order), exclude ? { unverifiable: 'exclude' } : {});
        const want = reference(weights, verdicts, claims, exclude);
        expect(s.completeness).toBeCloseTo(want.completeness, 12);
        expect(s.correctness).toBe(want.correctness);
        expect(s.f1).toBeCloseTo(want.f1, 12);
        expect(s.claims).toEqual({
          true: claims.filter((c) => c === 'true').length,
          false: claims.filter((c) => c === 'false').length,
          unverifiable: claims.filter((c) => c === 'unverifiable').length,
          total: claims.length,
        });
      }),
      { seed: 20261203, numRuns: 400 },
    );
  });

  it('the batch aggregate is the mean of the single scores and the sum of points and claims (seeded)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }), fc.array(setArb, { minLength: 1, maxLength: 8 }), (weights, sets) => {
        const rubric = rubricOf(weights, 1);
        const rows = sets.map((s, i) => ({ line: i + 1, id: `s${i}`, verdicts: verdictsOf(weights.map((_, k) => s.verdicts[k] ?? null), s.claims, weights.map((_, k) => s.order[k] ?? k)) }));
        const singles = rows.map((r) => scoreDescription(rubric, r.verdicts));
        const { lines, aggregate } = scoreDescriptionBatch(rubric, rows);
        expect(lines.map((l) => [l.id, l.completeness, l.correctness, l.f1])).toEqual(singles.map((s, i) => [`s${i}`, s.completeness, s.correctness, s.f1]));
        const mean = (k: 'completeness' | 'correctness' | 'f1') => singles.reduce((a, s) => a + s[k], 0) / singles.length;
        expect(aggregate.n).toBe(rows.length);
        for (const k of ['completeness', 'correctness', 'f1'] as const) expect(aggregate[k]).toBeCloseTo(mean(k), 12);
        expect(aggregate.claims.total).toBe(sets.reduce((a, s) => a + s.claims.length, 0));
        expect(aggregate.points.possible).toBe(rows.length * weights.reduce((a, w) => a + w, 0));
      }),
      { seed: 7, numRuns: 150 },
    );
  });

  it('a single item: correct 1, partial 0.5, incorrect and missing 0, whatever its weight', () => {
    for (const w of [1e-300, 0.5, 3, 1e300]) {
      const one = (verdict: Verdicts['items'][number]['verdict'] | null) =>
        scoreDescription(rubricOf([1], w), { items: verdict ? [{ id: 'i0', verdict }] : [], claims: [{ verdict: 'true' }] });
      expect([one('correct'), one('partial'), one('incorrect'), one('missing'), one(null)].map((s) => [s.completeness, s.f1])).toEqual([
        [1, 1],
        [0.5, 2 / 3],
        [0, 0],
        [0, 0],
        [0, 0],
      ]);
    }
  });
});

describe('weights whose points a double cannot hold are refused (bad input), not scored as NaN or 0', () => {
  const raw = (weights: number[]) => ({ id: 'w', title: 'W', reference: 'r', items: weights.map((weight, i) => ({ id: `i${i}`, text: 't', weight })) });
  it('weights summing past 1e300 (past the largest double, completeness was NaN, null in JSON, and f1 0, exit 0)', () => {
    expect(badInputMessage(() => parseRubric(raw([1e308, 1e308]), 'r.yaml'))).toMatch(/^r\.yaml: items: the weights sum to more than a number can hold/);
    expect(badInputMessage(() => parseRubric(raw([6e299, 6e299]), 'r.yaml'))).toMatch(/^r\.yaml: items: the weights sum to more than a number can hold/);
  });
  it('a subnormal weight: its half point rounded to 0 (partial scored as missing)', () => {
    expect(badInputMessage(() => parseRubric(raw([1, 5e-324]), 'r.yaml'))).toMatch(/^r\.yaml: items\[1\]\.weight: too small to score/);
  });
  it('the extremes that still hold are scored exactly', () => {
    expect(parseRubric(raw([3e299, 3e299, 3e299]), 'r.yaml').items).toHaveLength(3);
    expect(parseRubric(raw([2.2250738585072014e-308]), 'r.yaml').items[0]!.weight).toBe(2.2250738585072014e-308);
  });
});
