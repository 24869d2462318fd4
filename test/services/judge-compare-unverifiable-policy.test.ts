import { beforeAll, expect, it } from 'vitest';
import { judgeCompare } from '../../src/services/judge-compare.ts';
import { describeDb } from '../helpers/db.ts';
import { seedJudgeCompare } from './judge-compare-fixture.ts';

/**
 * Judge compare's F1 moves read each grade's stored F1, of the policy it was graded with (meta.unverifiable),
 * so a move between a judge graded under count and one under exclude mixed the judges' difference with the
 * policies'. They are read under the reports' default policy, count (report-policy.ts), and the report says
 * how many grades it left out. On the fixture (judge-compare-fixture.ts), by hand:
 *   new's x6 is stored under exclude: r 1, claims 1 true, 1 unverifiable: c 1, f1 1 as stored; under count
 *     c 1/2 → f1 2/3, so its move from old's 0.1 is 17/30, not 0.9.
 *   old's x1 is stored under exclude without claims (a panel-like grade): it cannot be read under count, so
 *     it leaves the moves (graded 4 → 3) and a note counts it.
 */
describeDb('judge compare F1 under one unverifiable-claims policy', (ctx) => {
  beforeAll(async () => {
    await seedJudgeCompare(ctx.database);
    const grade = `(select g.id from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id where j.slug = $1 and a.external_id = $2)`;
    await ctx.database.execute(
      `update grades set completeness = 1, correctness = 1, f1 = 1, meta = '{"unverifiable":"exclude"}',
              claims = '[{"text":"c0","verdict":"true"},{"text":"c1","verdict":"unverifiable"}]' where id = ${grade}`,
      ['new', 'x6'],
    );
    await ctx.database.execute(`update grades set meta = '{"unverifiable":"exclude","panel":{}}' where id = ${grade}`, ['old', 'x1']);
  });

  it('moves are under count; a grade that cannot be rescored is left out and counted in the notes', async () => {
    const r = await judgeCompare(ctx.database, { run: 'jc', a: 'old', b: 'new', top: 3 });
    expect(r.f1Moves.graded).toBe(3);
    const x6 = r.f1Moves.top.find((m) => m.answer === 'x6')!;
    expect(x6.f1B).toBeCloseTo(2 / 3, 12);
    expect(x6.delta).toBeCloseTo(17 / 30, 12);
    expect(r.f1Moves.top.map((m) => m.answer)).not.toContain('x1');
    expect(r.notes).toContain(
      "F1 moves read every grade with unverifiable claims counted in correctness (the reports' default); judge old: 1 grade left out: computed with unverifiable claims excluded, and its stored claims cannot rescore it under count (a panel grade keeps none)",
    );
  });
});
