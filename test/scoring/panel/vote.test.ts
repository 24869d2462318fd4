import { describe, expect, it } from 'vitest';
import type { Rubric } from '../../../src/domain/rubric.ts';
import { VERDICT_POINTS, type ItemVerdict } from '../../../src/domain/verdicts.ts';
import { majorityVerdict, TIE_PREFERENCE, votePanel, type PanelSample } from '../../../src/scoring/panel/index.ts';
import { badInputMessage } from '../../helpers/errors.ts';

/** Hand-worked panel votes (design §2.5): every figure below is computed on paper in the comments. */

const rubric = (items: Array<[string, number]>): Rubric => ({
  id: 'r',
  title: 'R',
  reference: 'ref',
  items: items.map(([id, weight]) => ({ id, text: `item ${id}`, weight })),
});

const abc = rubric([
  ['a', 2],
  ['b', 1],
  ['c', 1],
]);

const ok = (judge: string, verdicts: Record<string, ItemVerdict>, correctness: number, sample = 1): PanelSample => ({
  judge,
  sample,
  status: 'ok',
  items: Object.entries(verdicts).map(([id, verdict]) => ({ id, verdict })),
  correctness,
});

const failed = (judge: string, status = 'provider_error', sample = 1): PanelSample => ({ judge, sample, status, items: [], correctness: null });

// A: a correct, b partial, c missing;  B: a correct, b incorrect, c missing;  C: a partial, b correct, c incorrect.
const three = [
  ok('A', { a: 'correct', b: 'partial', c: 'missing' }, 0.8),
  ok('B', { a: 'correct', b: 'incorrect', c: 'missing' }, 0.6),
  ok('C', { a: 'partial', b: 'correct', c: 'incorrect' }, 1.0),
];

describe('majority vote, three judges', () => {
  const r = votePanel(abc, three);

  it('votes each item: a correct (2 of 3), b a three-way tie → incorrect (fewest points), c missing (2 of 3)', () => {
    expect(r.items.map((it) => [it.id, it.verdict, it.agreement])).toEqual([
      ['a', 'correct', 2 / 3],
      ['b', 'incorrect', 1 / 3],
      ['c', 'missing', 2 / 3],
    ]);
    expect(r.items[1]!.votes).toEqual({ correct: 1, partial: 1, incorrect: 1, missing: 0 });
    expect(r.items.map((it) => it.instability)).toEqual([1 - 2 / 3, 1 - 1 / 3, 1 - 2 / 3]);
    expect(r.items.map((it) => it.points)).toEqual([1, 0, 0]);
  });

  it('completeness (2·1 + 1·0 + 1·0)/4 = 0.5, correctness (0.8 + 0.6 + 1)/3 = 0.8, f1 = 0.8/1.3', () => {
    expect(r.status).toBe('ok');
    expect(r.reason).toBeNull();
    expect(r.completeness).toBe(0.5);
    expect(r.correctness).toBeCloseTo(0.8, 12);
    expect(r.f1).toBeCloseTo(0.8 / 1.3, 12);
    expect(r.quorum).toBe(2);
    expect([r.samples, r.okSamples]).toEqual([3, 3]);
  });

  it('reports each member: A (2 + 0.5)/4 = 0.625, B 2/4, C (1 + 1)/4', () => {
    expect(r.members).toEqual([
      { judge: 'A', sample: 1, status: 'ok', completeness: 0.625, correctness: 0.8 },
      { judge: 'B', sample: 1, status: 'ok', completeness: 0.5, correctness: 0.6 },
      { judge: 'C', sample: 1, status: 'ok', completeness: 0.5, correctness: 1.0 },
    ]);
  });

  it('mean item agreement (2/3 + 1/3 + 2/3)/3 = 5/9; pairwise kappa for the three pairs', () => {
    expect(r.agreement.meanItemAgreement).toBeCloseTo(5 / 9, 12);
    expect(r.agreement.pairwiseKappa.map((p) => [p.a, p.b])).toEqual([
      ['A#1', 'B#1'],
      ['A#1', 'C#1'],
      ['B#1', 'C#1'],
    ]);
    // A vs B: [correct, partial, missing] vs [correct, incorrect, missing]: po = 2/3; categories
    // correct, incorrect, missing, partial with shares A (1/3, 0, 1/3, 1/3), B (1/3, 1/3, 1/3, 0):
    // pe = 1/9 + 1/9 = 2/9, kappa = (2/3 − 2/9)/(7/9) = 4/7.
    expect(r.agreement.pairwiseKappa[0]!.kappa).toBeCloseTo(4 / 7, 12);
    // A vs C agree nowhere: po = 0; pe = A(c)·C(c) + A(p)·C(p) = 1/9 + 1/9 = 2/9; kappa = −(2/9)/(7/9) = −2/7.
    expect(r.agreement.pairwiseKappa[1]!.kappa).toBeCloseTo(-2 / 7, 12);
  });
});

describe('mean vote', () => {
  const r = votePanel(abc, three, { vote: 'mean' });

  it('each item earns its mean points: a (1 + 1 + 0.5)/3, b (0.5 + 0 + 1)/3, c 0; the verdict shown is the majority one', () => {
    expect(r.items.map((it) => it.points)).toEqual([2.5 / 3, 0.5, 0]);
    expect(r.items.map((it) => it.verdict)).toEqual(['correct', 'incorrect', 'missing']);
  });

  it('completeness (2·5/6 + 1·0.5)/4 = 13/24, the mean of the members’ 0.625, 0.5, 0.5; correctness as under majority', () => {
    expect(r.completeness).toBeCloseTo(13 / 24, 12);
    expect(r.completeness).toBeCloseTo((0.625 + 0.5 + 0.5) / 3, 12);
    expect(r.correctness).toBeCloseTo(0.8, 12);
    expect(r.f1).toBeCloseTo((2 * (13 / 24) * 0.8) / (13 / 24 + 0.8), 12);
  });

  it('partials average: two partials and a correct give (0.5 + 0.5 + 1)/3 = 2/3 of the weight', () => {
    const one = rubric([['x', 3]]);
    const m = votePanel(one, [ok('A', { x: 'partial' }, 1), ok('B', { x: 'partial' }, 1), ok('C', { x: 'correct' }, 1)], { vote: 'mean' });
    expect(m.items[0]!.points).toBeCloseTo(2 / 3, 12);
    expect(m.completeness).toBeCloseTo(2 / 3, 12);
    expect(votePanel(one, [ok('A', { x: 'partial' }, 1), ok('B', { x: 'partial' }, 1), ok('C', { x: 'correct' }, 1)]).completeness).toBe(0.5);
  });
});

describe('ties', () => {
  const four = rubric([
    ['x', 1],
    ['y', 1],
    ['z', 1],
    ['w', 1],
  ]);
  const pair = votePanel(four, [
    ok('A', { x: 'correct', y: 'incorrect', z: 'partial', w: 'correct' }, 1),
    ok('B', { x: 'partial', y: 'missing', z: 'incorrect', w: 'missing' }, 1),
  ]);

  it('a tie goes to the verdict worth fewer points: correct|partial → partial, partial|incorrect → incorrect, correct|missing → missing', () => {
    expect(pair.items.map((it) => it.verdict)).toEqual(['partial', 'missing', 'incorrect', 'missing']);
    expect(pair.items.every((it) => it.agreement === 0.5)).toBe(true);
  });

  it('between the two zero-point verdicts a tie goes to missing, whichever order the votes came in', () => {
    expect(pair.items[1]!.verdict).toBe('missing');
    const swapped = votePanel(four, [ok('A', { y: 'missing' }, 1), ok('B', { y: 'incorrect' }, 1)]);
    expect(swapped.items[1]!.verdict).toBe('missing');
    expect(majorityVerdict({ correct: 0, partial: 0, incorrect: 2, missing: 2 })).toBe('missing');
    expect(majorityVerdict({ correct: 2, partial: 2, incorrect: 0, missing: 0 })).toBe('partial');
  });

  it('no tie, no tie-break: two corrects outvote one missing', () => {
    expect(majorityVerdict({ correct: 2, partial: 0, incorrect: 0, missing: 1 })).toBe('correct');
    expect(majorityVerdict({ correct: 0, partial: 0, incorrect: 3, missing: 2 })).toBe('incorrect');
    expect(majorityVerdict({ correct: 0, partial: 0, incorrect: 0, missing: 0 })).toBeNull();
  });

  it('the tie order is the points order, missing before incorrect', () => {
    expect(TIE_PREFERENCE).toEqual(['missing', 'incorrect', 'partial', 'correct']);
    const pts = TIE_PREFERENCE.map((v) => VERDICT_POINTS[v]);
    expect([...pts].sort((p, q) => p - q)).toEqual(pts);
  });
});

describe('quorum and failing members', () => {
  const okA = ok('A', { a: 'correct', b: 'correct', c: 'partial' }, 0.5);
  const okB = ok('B', { a: 'correct', b: 'missing', c: 'partial' }, 1);

  it('a member that always fails abstains: at the quorum exactly (2 of 3 ok, quorum 2) the panel is ok', () => {
    const r = votePanel(abc, [okA, okB, failed('C')]);
    expect(r.status).toBe('ok');
    expect([r.okSamples, r.quorum]).toEqual([2, 2]);
    // a: correct (2/2); b: correct|missing tie → missing; c: partial → (2·1 + 0 + 0.5)/4 = 0.625
    expect(r.items.map((it) => it.verdict)).toEqual(['correct', 'missing', 'partial']);
    expect(r.completeness).toBe(0.625);
    expect(r.correctness).toBe(0.75);
    expect(r.members[2]).toEqual({ judge: 'C', sample: 1, status: 'provider_error', completeness: null, correctness: null });
    expect(r.items[0]!.votes).toEqual({ correct: 2, partial: 0, incorrect: 0, missing: 0 });
    expect(r.agreement.pairwiseKappa.map((p) => `${p.a}/${p.b}`)).toEqual(['A#1/B#1']);
  });

  it('below the quorum (1 of 3 ok) the status is not ok, the reason names every sample, scores are null', () => {
    const r = votePanel(abc, [okA, failed('B', 'parse_failure'), failed('C')]);
    expect(r.status).toBe('no_quorum');
    expect(r.reason).toBe('1 of 3 samples ok, quorum 2: A#1 ok, B#1 parse_failure, C#1 provider_error');
    expect([r.completeness, r.correctness, r.f1]).toEqual([null, null, null]);
    expect(r.items.map((it) => [it.verdict, it.points, it.agreement])).toEqual([
      [null, null, null],
      [null, null, null],
      [null, null, null],
    ]);
    expect(r.items[0]!.votes.correct).toBe(1);
    expect(r.agreement.meanItemAgreement).toBeNull();
  });

  it('an explicit quorum of 3 fails with 2 of 3 ok, and 1 is met by one ok sample', () => {
    expect(votePanel(abc, [okA, okB, failed('C')], { quorum: 3 }).status).toBe('no_quorum');
    expect(votePanel(abc, [okA, failed('B'), failed('C')], { quorum: 1 }).status).toBe('ok');
  });

  it('default quorum is more than half of members × samples: 4 samples need 3, 1 needs 1', () => {
    const samples = [okA, { ...okA, sample: 2 }, okB, failed('B', 'truncated', 2)];
    const r = votePanel(abc, samples);
    expect([r.quorum, r.okSamples, r.status]).toEqual([3, 3, 'ok']);
    expect(votePanel(abc, [okA, { ...okA, sample: 2 }, failed('B'), failed('B', 'refused', 2)]).status).toBe('no_quorum');
    expect(votePanel(abc, [okA]).quorum).toBe(1);
  });

  it('a panel where every sample fails is not ok and names them all', () => {
    const r = votePanel(abc, [failed('A'), failed('B', 'refused')]);
    expect(r.reason).toBe('0 of 2 samples ok, quorum 2: A#1 provider_error, B#1 refused');
    expect(r.agreement.pairwiseKappa).toEqual([]);
  });
});

describe('bad input', () => {
  it('refuses malformed panels with one clear line', () => {
    expect(badInputMessage(() => votePanel(abc, []))).toMatch(/no samples/);
    expect(badInputMessage(() => votePanel(abc, three, { quorum: 4 }))).toMatch(/quorum: must be a whole number from 1 to the 3 samples, got 4/);
    expect(badInputMessage(() => votePanel(abc, three, { quorum: 0 }))).toMatch(/quorum/);
    expect(badInputMessage(() => votePanel(abc, [three[0]!, three[0]!]))).toMatch(/sample A#1 is given twice/);
    expect(badInputMessage(() => votePanel(abc, [{ ...three[0]!, sample: 0 }]))).toMatch(/count from 1/);
    expect(badInputMessage(() => votePanel(abc, [{ ...three[0]!, correctness: null }]))).toMatch(/A#1: an ok sample needs a correctness/);
    expect(badInputMessage(() => votePanel(abc, [ok('A', { nope: 'correct' }, 1)]))).toMatch(/panel sample A#1: items\[0\]: unknown rubric item 'nope'/);
    expect(badInputMessage(() => votePanel(abc, three, { vote: 'median' as never }))).toMatch(/expected majority\|mean/);
  });
});
