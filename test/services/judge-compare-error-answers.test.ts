import { beforeAll, expect, it } from 'vitest';
import { judgeCompare } from '../../src/services/judge-compare.ts';
import { describeDb } from '../helpers/db.ts';
import { addErrorDescription } from './error-answer-fixture.ts';
import { seedJudgeCompare } from './judge-compare-fixture.ts';

/**
 * An answer stored with status error is a model call that failed: there is no answer, so a grade of it
 * (stored before 6bf3f2c, or imported) and a person's label of its leftover text compare nothing. Judge
 * compare read both. The fixture (judge-compare-fixture.ts, hand-checked: 6 units, κA = 5/9, κB = 19/25,
 * 3 flips, F1 moves over 4 answers, top x6 then x1) gains x7, status error, graded ok by both judges
 * (old: barn incorrect, cow-in-barn incorrect, F1 0; new: both correct, F1 1) and labelled by h1 (both
 * correct). Read, x7 added 2 units (8), 2 flips toward the human (5 in all) and the largest move (|1 − 0| = 1,
 * graded 5). Left out, every figure is the fixture's own, and a note counts the 1 error answer.
 */
describeDb('judge compare leaves error answers out', (ctx) => {
  beforeAll(async () => {
    const d = ctx.database;
    await seedJudgeCompare(d);
    const x7 = await addErrorDescription(d, 'jc', 'x7', 'I will look closer: a');
    for (const [slug, verdict, f1] of [['old', 'incorrect', 0], ['new', 'correct', 1]] as const) {
      await d.execute(
        `insert into grades (answer_id, judge_id, rubric_version_id, status, f1, items)
         values ($1, (select id from judges where slug = $2), (select id from rubric_versions limit 1), 'ok', $3, $4::jsonb)`,
        [x7, slug, f1, JSON.stringify([{ id: 'barn', verdict }, { id: 'cow-in-barn', verdict }])],
      );
    }
    for (const item of ['barn', 'cow-in-barn']) {
      await d.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, $2, 'h1', 'human', 'correct')`, [x7, item]);
    }
  });

  it("the fixture's hand-checked figures, x7 in none of them; a note counts it", async () => {
    const r = await judgeCompare(ctx.database, { run: 'jc', a: 'old', b: 'new', top: 2 });
    expect(r).toMatchObject({ units: 6, answers: 3, humanLabelledPairs: 9 });
    expect(r.dropped.byReason.map((x) => [x.reason, x.count])).toEqual([['humanTie', 1], ['aNotOk', 1], ['bNotGraded', 1]]);
    expect(r.a.kappa.kappa).toBeCloseTo(5 / 9, 12);
    expect(r.b.kappa.kappa).toBeCloseTo(19 / 25, 12);
    expect(r.flips).toMatchObject({ flips: 3, towardHuman: 2, awayFromHuman: 1 });
    expect(r.f1Moves.graded).toBe(4);
    expect(r.f1Moves.top.map((m) => m.answer)).toEqual(['x6', 'x1']);
    expect(r.notes).toContain(
      "1 answer stored with status error (the model call failed) left out: there is no answer, so its grades (stored before grading skipped such answers, or imported) and people's labels compare nothing",
    );
  });
});
