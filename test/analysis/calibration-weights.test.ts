import { describe, expect, it } from 'vitest';
import { calibrate } from '../../src/analysis/calibration/index.ts';
import type { LabelRow } from '../../src/domain/labels.ts';

/**
 * The weights of the answer roll-up (analysis/calibration/weights.ts), as POST /api/calibrate passes them
 * (flat: item id → weight) and as `assay calibrate --rubric` does (per rubric). Rubrics r1 and r2 share
 * the item `subject`; x is of r1, y of r2. People say correct (1) on every item; the judge says subject
 * incorrect (0), sky correct (1). With r1 = {subject 3, sky 1}, r2 = {subject 1, sky 3}, by hand:
 *   x: judge (3·0 + 1)/4 = 1/4;  y: judge (1·0 + 3)/4 = 3/4;  humans 1 and 1; bias = −1/2.
 */
const rows: LabelRow[] = [['x', 'r1'], ['y', 'r2']].flatMap(([answer, rubric]) =>
  ['subject', 'sky'].flatMap((item): LabelRow[] => [
    { answer: answer!, rubric: rubric!, item, rater: 'h', kind: 'human', label: 'correct' },
    { answer: answer!, rubric: rubric!, item, rater: 'j', kind: 'judge', label: item === 'subject' ? 'incorrect' : 'correct' },
  ]),
);
const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
};

describe('calibration weights: each unit by its own rubric', () => {
  it('per-rubric weights: each answer by the rubric its rows name', () => {
    const r = calibrate(rows, { scale: 'verdict', weights: [{ rubric: 'r1', items: { subject: 3, sky: 1 } }, { rubric: 'r2', items: { subject: 1, sky: 3 } }] });
    const a = r.judgeReports[0]!.answers;
    expect(a.answers.map((x) => [x.answer, x.judge, x.human])).toEqual([['x', 1 / 4, 1], ['y', 3 / 4, 1]]);
    expect(a.bias).toBeCloseTo(-1 / 2, 12);
  });

  it('flat weights (one rubric) over rows of two rubrics: refused, not applied to both', () => {
    expect(errorOf(() => calibrate(rows, { scale: 'verdict', weights: { subject: 3, sky: 1 } }))).toMatch(
      /^weights: one set of item weights \(by item id\) for labels of 2 rubrics \(r1, r2\)/,
    );
  });

  it('flat weights over rows of one rubric, or naming none: applied', () => {
    const one = rows.filter((r) => r.answer === 'x');
    expect(calibrate(one, { scale: 'verdict', weights: { subject: 3, sky: 1 } }).judgeReports[0]!.answers.answers[0]!.judge).toBe(1 / 4);
    const unnamed = rows.map(({ rubric: _, ...r }) => r);
    // Both read with {subject 3, sky 1}: 1/4 each.
    expect(calibrate(unnamed, { scale: 'verdict', weights: { subject: 3, sky: 1 } }).judgeReports[0]!.answers.answers.map((x) => x.judge)).toEqual([1 / 4, 1 / 4]);
  });

  it('a rubric not given, an unnamed answer among several rubrics, a rubric twice: refused', () => {
    expect(errorOf(() => calibrate(rows, { scale: 'verdict', weights: [{ rubric: 'r1', items: { subject: 3, sky: 1 } }] }))).toMatch(/answer 'y' is of rubric 'r2'/);
    const mixed = [...rows.filter((r) => r.answer === 'x'), ...rows.filter((r) => r.answer === 'y').map(({ rubric: _, ...r }) => r)];
    const both = [{ rubric: 'r1', items: { subject: 3, sky: 1 } }, { rubric: 'r2', items: { subject: 1, sky: 3 } }];
    expect(errorOf(() => calibrate(mixed, { scale: 'verdict', weights: both }))).toMatch(/answer 'y' names no rubric, and 2 rubrics are given \(r1, r2\)/);
    expect(errorOf(() => calibrate(rows, { scale: 'verdict', weights: [both[0]!, both[0]!, both[1]!] }))).toMatch(/rubric 'r1' is given twice/);
  });
});
