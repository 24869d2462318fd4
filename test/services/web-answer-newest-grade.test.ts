import { expect, it } from 'vitest';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { listAnswerRows } from '../../src/services/web-answer.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * The answers page shows an answer's newest ok grade's F1. It ordered by created_at only, so two grades
 * written in one transaction (one now(), the same microsecond) came back in whatever order the plan gave:
 * the page could show the earlier grade while the reports and API take the later one. The rule is the one
 * of newest-grade.ts: written last, created_at then id.
 */
describeDb('answers page: the newest grade on a created_at tie', (ctx) => {
  it('takes the grade with the higher id, as every other read does', async () => {
    await seedExamples(ctx.database);
    await importAnswersJsonl(ctx.database, {
      path: 'tie.jsonl',
      content: JSON.stringify({ id: 'tie-1', run: 'tie', model: 'm', task: 'describe', rubric: 'farmyard-54', text: 'A red barn. Three pigs.' }),
    });
    const answerId = Number((await ctx.database.execute(`select id from answers where external_id = 'tie-1'`)).rows[0]!.id);
    await gradeAnswer(ctx.database, { answer: { id: answerId }, judge: 'lexical' });
    // A second grade of the same answer, same judge, another rubric version slot (null), the same
    // created_at and a higher id: the one written last.
    await ctx.database.execute(`update grades set f1 = 0.125 where answer_id = $1`, [answerId]);
    await ctx.database.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, f1, created_at)
       select answer_id, judge_id, null, 'ok', 0.875, created_at from grades where answer_id = $1`,
      [answerId],
    );
    const stamps = await ctx.database.execute(`select count(distinct created_at)::int as n, count(*)::int as grades from grades where answer_id = $1`, [answerId]);
    expect(stamps.rows[0]).toMatchObject({ n: 1, grades: 2 });
    const list = await listAnswerRows(ctx.database, { run: 'tie', limit: 10, offset: 0 });
    expect(list.rows).toHaveLength(1);
    expect(list.rows[0]).toMatchObject({ answer: 'tie-1', grades: 2, f1: 0.875 });
  });
});
