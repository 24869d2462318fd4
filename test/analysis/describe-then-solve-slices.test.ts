import { describe, expect, it } from 'vitest';
import { describeThenSolve, type DtsRow } from '../../src/analysis/describe-then-solve/index.ts';

/**
 * Rows without a slice beside rows with one: the slice tables must still cover every row (a '(none)'
 * group, as multiple-choice scoring does for items without a category), so slices sum to the whole.
 */
describe('describe-then-solve — rows without a slice', () => {
  const rows: DtsRow[] = [
    { model: 'm', item: '1', slice: 'small', perception: true, answer: true },
    { model: 'm', item: '2', slice: 'small', perception: false, answer: false },
    { model: 'm', item: '3', perception: true, answer: false },
    { model: 'm', item: '4', perception: false, answer: true },
    { model: 'n', item: '1', perception: true, answer: true },
  ];
  const r = describeThenSolve(rows);

  it('are grouped under (none), across models and within each model', () => {
    expect(Object.keys(r.bySlice)).toEqual(['(none)', 'small']);
    expect(r.bySlice['(none)']!.n).toBe(3);
    expect([r.bySlice['(none)']!.answer.successes, r.bySlice['(none)']!.answer.trials]).toEqual([2, 3]);
    expect([r.bySlice['(none)']!.answerGivenPerception.successes, r.bySlice['(none)']!.answerGivenPerception.trials]).toEqual([1, 2]);
    expect(Object.keys(r.byModel['m']!.bySlice)).toEqual(['(none)', 'small']);
    expect(r.byModel['m']!.bySlice['(none)']!.n).toBe(2);
    expect(r.byModel['n']!.bySlice['(none)']!.n).toBe(1);
  });

  it('so the slices of every scope sum to its n', () => {
    const sum = (g: Record<string, { n: number }>) => Object.values(g).reduce((s, x) => s + x.n, 0);
    expect(sum(r.bySlice)).toBe(r.overall.n);
    for (const m of Object.values(r.byModel)) expect(sum(m.bySlice)).toBe(m.n);
  });

  it('and a file without any slice has no slice groups at all', () => {
    const plain = describeThenSolve(rows.map(({ slice: _s, ...x }) => x));
    expect(plain.bySlice).toEqual({});
    expect(plain.byModel['m']!.bySlice).toEqual({});
  });
});
