import { beforeAll, describe, expect, it } from 'vitest';
import { humanMajority, reliabilityPoints } from '../../../src/analysis/calibration/reliability-points.ts';
import { grades, judges, labels } from '../../../src/db/schema.ts';
import { loadReliability } from '../../../src/services/grading/calibration-reliability.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedRun } from '../../jobs/helpers.ts';

/**
 * A judge's reliability diagram over a stored run, hand-worked. Judge conf-j's newest grades:
 *   a0 ok: barn correct (conf .9), cow-in-barn missing (.8), fence partial (no confidence)
 *   a1 ok: barn correct (.3), sheep incorrect (.55)          — an older grade of a1 by another
 *                                                               configuration says barn .05: not read
 *   a2 parse_failure                                          — not ok: not read
 * Humans: a0 barn correct, correct, partial → correct (judge agrees); a0 cow-in-barn correct, missing →
 * tie (left out); a1 barn missing, missing → missing (judge disagrees); a1 sheep unlabelled (left out).
 * Points (.9, agrees) and (.3, disagrees): 10 bins → bin [.9, 1] and bin [.3, .4), one point each;
 * ECE = ½·|1 − .9| + ½·|0 − .3| = .2.
 */
describe('reliability points (pure)', () => {
  it('human majority: the top verdict, a tie, a label that is no verdict', () => {
    expect(humanMajority(['correct', 'correct', 'partial'])).toBe('correct');
    expect(humanMajority(['correct', 'missing'])).toBe('tie');
    expect(humanMajority(['correct', 'maybe'])).toBe('invalid');
  });
  it('each graded item is a point or counted under its first reason', () => {
    const r = reliabilityPoints(
      [{ answer: 'x', items: [{ id: 'i1', verdict: 'partial', confidence: 0.4, confidenceSource: 'vote' }, { id: 'i2', verdict: 'correct', confidence: null }, { id: 'i3', verdict: 'correct', confidence: 0.7 }] }],
      [{ answer: 'x', item: 'i1', label: 'partial' }, { answer: 'x', item: 'i2', label: 'correct' }, { answer: 'x', item: 'i3', label: 'yes' }],
    );
    expect(r.points).toEqual([{ answer: 'x', item: 'i1', verdict: 'partial', majority: 'partial', confidence: 0.4, confidenceSource: 'vote', agrees: true }]);
    expect(r.leftOut).toEqual({ noConfidence: 1, noHumanLabel: 0, humanTie: 0, humanNotAVerdict: 1 });
  });
});

describeDb('loadReliability over a stored run', (ctx) => {
  beforeAll(async () => {
    const { answerIds: [a0, a1, a2] } = await seedRun(ctx.database, 'rel', 3);
    const [older, newer] = await ctx.database.db
      .insert(judges)
      .values([
        { slug: 'conf-j', provider: 'openai', model: 'gpt-4.1', config: { v: 1 }, configHash: 'conf-j-1' },
        { slug: 'conf-j', provider: 'openai', model: 'gpt-4.1', config: { v: 2 }, configHash: 'conf-j-2' },
      ])
      .returning({ id: judges.id });
    const item = (id: string, verdict: string, confidence: number | null) => ({ id, weight: 1, verdict, evidence: '', points: 0, confidence, confidenceSource: confidence === null ? null : ('logprob' as const) });
    const ok = { status: 'ok' as const, completeness: 0.5, correctness: 1, f1: 0.5, claims: [] };
    await ctx.database.db.insert(grades).values([
      { answerId: a1!, judgeId: older!.id, ...ok, items: [item('barn', 'correct', 0.05)], createdAt: new Date('2020-01-01') },
      { answerId: a0!, judgeId: newer!.id, ...ok, items: [item('barn', 'correct', 0.9), item('cow-in-barn', 'missing', 0.8), item('fence', 'partial', null)] },
      { answerId: a1!, judgeId: newer!.id, ...ok, items: [item('barn', 'correct', 0.3), item('sheep', 'incorrect', 0.55)] },
      { answerId: a2!, judgeId: newer!.id, status: 'parse_failure' as const, items: [item('barn', 'correct', 0.99)] },
    ]);
    const human = (answerId: number, itemKey: string, annotator: string, label: string) => ({ answerId, itemKey, annotator, kind: 'human' as const, label });
    await ctx.database.db.insert(labels).values([
      human(a0!, 'barn', 'ann', 'correct'),
      human(a0!, 'barn', 'bob', 'correct'),
      human(a0!, 'barn', 'cat', 'partial'),
      human(a0!, 'cow-in-barn', 'ann', 'correct'),
      human(a0!, 'cow-in-barn', 'bob', 'missing'),
      human(a1!, 'barn', 'ann', 'missing'),
      human(a1!, 'barn', 'bob', 'missing'),
      human(a2!, 'barn', 'ann', 'correct'),
    ]);
  });

  it('the hand-worked diagram: newest ok grades, left-out counts, ECE', async () => {
    const r = await loadReliability(ctx.database, { run: 'rel', judge: 'conf-j' });
    expect(r.points).toEqual([
      { answer: 'a0', item: 'barn', verdict: 'correct', majority: 'correct', confidence: 0.9, confidenceSource: 'logprob', agrees: true },
      { answer: 'a1', item: 'barn', verdict: 'correct', majority: 'missing', confidence: 0.3, confidenceSource: 'logprob', agrees: false },
    ]);
    expect(r.leftOut).toEqual({ noConfidence: 1, noHumanLabel: 1, humanTie: 1, humanNotAVerdict: 0, examples: 0 });
    expect(r.diagram.n).toBe(2);
    expect(r.diagram.bins).toHaveLength(10);
    expect(r.diagram.bins.filter((b) => b.n > 0)).toEqual([
      { lo: 0.3, hi: 0.4, n: 1, meanConfidence: 0.3, agreement: 0 },
      { lo: 0.9, hi: 1, n: 1, meanConfidence: 0.9, agreement: 1 },
    ]);
    expect(r.diagram.ece).toBeCloseTo(0.2, 12);
    const two = await loadReliability(ctx.database, { run: 'rel', judge: 'conf-j', bins: 2 });
    expect(two.diagram.bins.map((b) => [b.n, b.agreement])).toEqual([[1, 0], [1, 1]]);
    expect(two.diagram.ece).toBeCloseTo(0.2, 12);
  });

  it('not found for an unknown run or judge; bad bins are bad input', async () => {
    await expect(loadReliability(ctx.database, { run: 'nope', judge: 'conf-j' })).rejects.toThrow(/run 'nope' not found/);
    await expect(loadReliability(ctx.database, { run: 'rel', judge: 'nobody' })).rejects.toThrow(/judge 'nobody' has graded nothing/);
    await expect(loadReliability(ctx.database, { run: 'rel', judge: 'conf-j', bins: 0 })).rejects.toThrow(/bins must be a whole number from 1 to 100/);
  });
});
