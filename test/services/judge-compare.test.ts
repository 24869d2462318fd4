import { beforeAll, expect, it } from 'vitest';
import { judgeCompare } from '../../src/services/judge-compare.ts';
import { describeDb } from '../helpers/db.ts';
import { seedJudgeCompare } from './judge-compare-fixture.ts';

describeDb('judgeCompare over stored grades', (ctx) => {
  beforeAll(async () => {
    await seedJudgeCompare(ctx.database);
  });

  it('reads both judges\' stored grades and the human labels: the hand-checked figures', async () => {
    const r = await judgeCompare(ctx.database, { run: 'jc', a: 'old', b: 'new', top: 2 });
    expect(r).toMatchObject({ run: 'jc', judgeA: 'old', judgeB: 'new', units: 6, answers: 3, humanLabelledPairs: 9 });
    expect(r.dropped.byReason.map((d) => [d.reason, d.count])).toEqual([['humanTie', 1], ['aNotOk', 1], ['bNotGraded', 1]]);
    expect(r.a.kappa.kappa).toBeCloseTo(5 / 9, 12);
    expect(r.b.kappa.kappa).toBeCloseTo(19 / 25, 12);
    expect(r.difference.weightedKappa.estimate).toBeCloseTo(1 / 6, 12);
    expect(r.bootstrap).toEqual({ seed: 1, resamples: 1000, confidence: 0.95, unit: 'answer' });
    expect(r.flips).toMatchObject({ flips: 3, towardHuman: 2, awayFromHuman: 1 });
    expect(r.f1Moves.top.map((m) => m.answer)).toEqual(['x6', 'x1']);
  });

  it('a judge without grades of the run, an unknown run, the same judge twice: refused', async () => {
    await expect(judgeCompare(ctx.database, { run: 'jc', a: 'old', b: 'idle' })).rejects.toThrow(
      "judge 'idle' has no grades for run 'jc'; grade it first: assay run --run jc --judge idle",
    );
    await expect(judgeCompare(ctx.database, { run: 'nope', a: 'old', b: 'new' })).rejects.toThrow("run 'nope' not found");
    await expect(judgeCompare(ctx.database, { run: 'jc', a: 'old', b: 'old' })).rejects.toThrow("give two different judges (both are 'old')");
  });
});
