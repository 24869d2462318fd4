import { describe, expect, it } from 'vitest';
import { describeThenSolve } from '../../src/analysis/describe-then-solve/index.ts';
import { scoreDescription } from '../../src/scoring/description/score.ts';
import { parseRubric } from '../../src/scoring/description/rubric.ts';

/**
 * "≥ τ counts as ok" is inclusive for the score the user means, not for its last bit. F1 is computed in
 * floating point from two ratios, so a description with every item correct and 3 of 5 claims true has
 * F1 exactly 3/4 but is stored as 0.7499999999999999; at τ = 0.75 it counted as a wrong perception
 * (completeness 3/4 and correctness 3/5: F1 2/3, stored 0.6666666666666665, below τ = 2/3 likewise).
 */

const rubric = parseRubric({ id: 'r', title: 'R', reference: 'a b c d', items: [{ id: 'a', weight: 1, text: 'A.' }, { id: 'b', weight: 1, text: 'B.' }, { id: 'c', weight: 1, text: 'C.' }, { id: 'd', weight: 1, text: 'D.' }] }, 'rubric');
const f1Of = (verdicts: string[], claims: boolean[]) =>
  scoreDescription(rubric, {
    items: verdicts.map((verdict, i) => ({ id: 'abcd'[i]!, verdict: verdict as 'correct' })),
    claims: claims.map((t) => ({ text: 'c', verdict: t ? 'true' : 'false' })),
  }).f1;

describe('describe-then-solve thresholds at the boundary', () => {
  it('an F1 of exactly τ, as scoring computes it, counts as ok', () => {
    const threeQuarters = f1Of(['correct', 'correct', 'correct', 'correct'], [true, true, true, false, false]);
    const twoThirds = f1Of(['correct', 'correct', 'correct', 'missing'], [true, true, true, false, false]);
    expect(threeQuarters).toBeCloseTo(0.75, 15);
    expect(twoThirds).toBeCloseTo(2 / 3, 15);
    const at = (perception: number, tau: number) =>
      describeThenSolve([{ model: 'm', item: 'i', perception, answer: true }], { perceptionThreshold: tau }).overall.perception.successes;
    expect(at(threeQuarters, 0.75)).toBe(1);
    expect(at(twoThirds, 2 / 3)).toBe(1);
    // A score that is really below τ still is not ok.
    expect(at(0.7499, 0.75)).toBe(0);
    expect(at(0.75 - 1e-9, 0.75)).toBe(0);
  });

  it('the answer side alike', () => {
    const r = describeThenSolve([{ model: 'm', item: 'i', perception: true, answer: (2 * 1 * 0.6) / 1.6 }], { answerThreshold: 0.75 });
    expect(r.overall.answer.successes).toBe(1);
  });
});
