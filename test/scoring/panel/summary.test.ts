import { describe, expect, it } from 'vitest';
import type { Rubric } from '../../../src/domain/rubric.ts';
import type { ItemVerdict } from '../../../src/domain/verdicts.ts';
import { itemInstability, memberKappaAgainstVote, votePanel, type PanelSample } from '../../../src/scoring/panel/index.ts';

/** Figures over a run of panel grades, worked by hand. */

const abc: Rubric = {
  id: 'r',
  title: 'R',
  reference: 'ref',
  items: [
    { id: 'a', text: 'a', weight: 2 },
    { id: 'b', text: 'b', weight: 1 },
    { id: 'c', text: 'c', weight: 1 },
  ],
};

const ok = (judge: string, [a, b, c]: ItemVerdict[]): PanelSample => ({
  judge,
  sample: 1,
  status: 'ok',
  items: [
    { id: 'a', verdict: a! },
    { id: 'b', verdict: b! },
    { id: 'c', verdict: c! },
  ],
  correctness: 1,
});
const failed = (judge: string): PanelSample => ({ judge, sample: 1, status: 'provider_error', items: [], correctness: null });

const answers = [
  // votes a correct (1 of 3 disagrees), b 3-way tie → incorrect (2 disagree), c missing (1 disagrees)
  [ok('A', ['correct', 'partial', 'missing']), ok('B', ['correct', 'incorrect', 'missing']), ok('C', ['partial', 'correct', 'incorrect'])],
  // C fails; a correct (0 of 2), b correct (0), c correct|missing tie → missing (1 disagrees)
  [ok('A', ['correct', 'correct', 'correct']), ok('B', ['correct', 'correct', 'missing']), failed('C')],
  // no quorum: left out of both figures
  [ok('A', ['missing', 'missing', 'missing']), failed('B'), failed('C')],
].map((samples) => ({ samples, result: votePanel(abc, samples) }));

describe('item instability over a run', () => {
  it('pools ok samples over the quorate grades: a 1/5, b 2/5, c 2/5', () => {
    expect(answers.map((a) => a.result.status)).toEqual(['ok', 'ok', 'no_quorum']);
    expect(itemInstability(abc, answers.map((a) => a.result))).toEqual([
      { id: 'a', instability: 1 / 5, samples: 5, answers: 2 },
      { id: 'b', instability: 2 / 5, samples: 5, answers: 2 },
      { id: 'c', instability: 2 / 5, samples: 5, answers: 2 },
    ]);
  });

  it('reads stored reports without a rubric: the same figures, items in order of first appearance', () => {
    const stored = answers.map((a) => JSON.parse(JSON.stringify({ status: a.result.status, items: a.result.items.map(({ id, verdict, votes }) => ({ id, verdict, votes })) })));
    expect(itemInstability(null, stored)).toEqual(itemInstability(abc, answers.map((a) => a.result)));
  });

  it('is null for an item no quorate grade voted on', () => {
    expect(itemInstability(abc, [answers[2]!.result]).map((r) => r.instability)).toEqual([null, null, null]);
  });
});

describe('member kappa against the vote', () => {
  const k = memberKappaAgainstVote(abc, answers);

  it('A pooled over two answers: po 4/6, pe 14/36, kappa 5/11', () => {
    // A [c, p, m, c, c, c] vs vote [c, i, m, c, c, m]: shares A (4, 0, 1, 1)/6 and vote (3, 1, 2, 0)/6 over
    // correct, incorrect, missing, partial → pe = (12 + 2)/36; kappa = (24 − 14)/(36 − 14) = 10/22.
    expect(k[0]!.judge).toBe('A');
    expect(k[0]!.n).toBe(6);
    expect(k[0]!.kappa).toBeCloseTo(5 / 11, 12);
  });

  it('C only where it answered: three items that all disagree, kappa −2/7', () => {
    expect(k.map((m) => m.judge)).toEqual(['A', 'B', 'C']);
    expect(k[2]!.n).toBe(3);
    expect(k[2]!.kappa).toBeCloseTo(-2 / 7, 12);
  });
});
