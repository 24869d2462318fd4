import { beforeAll, expect, it } from 'vitest';
import { judgeCompare } from '../../src/services/judge-compare.ts';
import { describeDb } from '../helpers/db.ts';
import { seedJudgeCompare } from './judge-compare-fixture.ts';

/**
 * Judge compare's policy note counts grades the reports' policy (count) cannot read; an answer either
 * judge was shown as an example is left out of the comparison for both (example-exclusion.ts), whatever
 * the policy, so a grade of it is no grade the policy left out (as 8cee23b for calibration). The case
 * (judge-compare-unverifiable-policy.test.ts): old's x1 is stored under exclude without claims, unreadable
 * under count, so without examples the moves are over x2, x3, x6 (graded 3) and the note counts old's x1.
 * Here x1 is an example: the moves are over x2, x3, x6 still (graded 3) and no grade is said left out.
 */
const NOTE =
  "F1 moves read every grade with unverifiable claims counted in correctness (the reports' default); judge old: 1 grade left out: computed with unverifiable claims excluded, and its stored claims cannot rescore it under count (a panel grade keeps none)";
const shows = (answer: string) => JSON.stringify({ id: 'x', resolvedExamples: [{ answerId: 0, run: 'jc', answer, verdicts: [] }] });

describeDb("judge compare policy note: an example answer's grade is not counted as left out by the policy", (ctx) => {
  beforeAll(async () => {
    await seedJudgeCompare(ctx.database);
    const grade = `(select g.id from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id where j.slug = $1 and a.external_id = $2)`;
    await ctx.database.execute(`update grades set meta = '{"unverifiable":"exclude","panel":{}}' where id = ${grade}`, ['old', 'x1']);
  });
  const setExamples = async (old: string | null, neu: string | null) => {
    await ctx.database.execute(`update judges set config = $1::jsonb where slug = 'old'`, [old ? shows(old) : '{}']);
    await ctx.database.execute(`update judges set config = $1::jsonb where slug = 'new'`, [neu ? shows(neu) : '{}']);
  };
  const policyNotes = (notes: string[]) => notes.filter((n) => n.startsWith('F1 moves read'));

  it('old shown x1 (its own unreadable grade): graded 3, no policy note', async () => {
    await setExamples('x1', null);
    const r = await judgeCompare(ctx.database, { run: 'jc', a: 'old', b: 'new', top: 5 });
    expect(r.excludedExamples).toBe(1);
    expect(r.f1Moves.graded).toBe(3);
    expect(r.f1Moves.top.map((m) => m.answer).sort()).toEqual(['x2', 'x3', 'x6']);
    expect(policyNotes(r.notes)).toEqual([]);
  });

  it('new shown x1: x1 leaves both judges, so old\'s grade of it is not counted either', async () => {
    await setExamples(null, 'x1');
    const r = await judgeCompare(ctx.database, { run: 'jc', a: 'old', b: 'new', top: 5 });
    expect(r.excludedExamples).toBe(1);
    expect(r.f1Moves.graded).toBe(3);
    expect(policyNotes(r.notes)).toEqual([]);
  });

  it('old shown x2 (not x1): the grade of x1 is still counted; x2 leaves the moves (graded 2)', async () => {
    await setExamples('x2', null);
    const r = await judgeCompare(ctx.database, { run: 'jc', a: 'old', b: 'new', top: 5 });
    expect(r.f1Moves.graded).toBe(2);
    expect(r.f1Moves.top.map((m) => m.answer).sort()).toEqual(['x3', 'x6']);
    expect(policyNotes(r.notes)).toEqual([NOTE]);
  });
});
