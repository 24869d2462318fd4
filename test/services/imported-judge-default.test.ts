import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { importForeignAnswers } from '../../src/services/import-foreign.ts';
import { chooseJudge } from '../../src/services/report-data.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { describeDb } from '../helpers/db.ts';

/** Reports choose their default judge among real judges: imported scores are shown only when named. */

describeDb('default report judge with imported scores', (ctx) => {
  it('is never an imported scorer, however many answers it scored; naming one still finds it', async () => {
    await importRubrics(ctx.database, [{ path: 'rubrics/farmyard.yaml', content: readFileSync('rubrics/farmyard.yaml', 'utf8') }]);
    const file = 'test/fixtures/import-formats/inspect-log.json';
    const r = await importForeignAnswers(ctx.database, { path: file, content: readFileSync(file, 'utf8') }, 'inspect', { task: 'describe', rubric: 'farmyard-54', run: 'inspect-run' });
    expect(r.grades.stored).toBe(3);
    // Only imported judges have graded: no default, but each can be asked for by name.
    expect(await chooseJudge(ctx.database)).toBeNull();
    expect(await chooseJudge(ctx.database, 'inspect:model_graded_qa')).toMatchObject({ slug: 'inspect:model_graded_qa', provider: 'imported' });
    // A real judge with fewer graded answers (one, against the scorer's three) is the default.
    const answer = Number((await ctx.database.execute(`select id from answers order by id limit 1`)).rows[0]!.id);
    const { gradeAnswer, namedJudge, openJudge } = await import('../../src/services/grading/grade-answer.ts');
    await gradeAnswer(ctx.database, { judge: await openJudge(namedJudge('lexical', {}, { from: 'network' }), {}), keys: {}, answer: { id: answer } });
    expect(await chooseJudge(ctx.database)).toMatchObject({ slug: 'lexical' });
  }, 120_000);

  it('a re-import with a changed score is refused and changes nothing (never "unchanged" over the old score)', async () => {
    const file = 'test/fixtures/import-formats/inspect-log.json';
    const changed = readFileSync(file, 'utf8').replace('"value": "C"', '"value": "I"');
    expect(changed).not.toBe(readFileSync(file, 'utf8'));
    const stored = `select g.completeness from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id where j.slug = 'inspect:model_graded_qa' and a.external_id = 'farm-1'`;
    expect((await ctx.database.execute(stored)).rows).toEqual([{ completeness: 1 }]);
    await expect(importForeignAnswers(ctx.database, { path: file, content: changed }, 'inspect', { task: 'describe', rubric: 'farmyard-54', run: 'inspect-run' })).rejects.toThrow(
      /the stored inspect:model_graded_qa score is 1, this file says 0; imported scores are not replaced/,
    );
    expect((await ctx.database.execute(stored)).rows).toEqual([{ completeness: 1 }]);
    // The same file again is unchanged.
    const again = await importForeignAnswers(ctx.database, { path: file, content: readFileSync(file, 'utf8') }, 'inspect', { task: 'describe', rubric: 'farmyard-54', run: 'inspect-run' });
    expect(again.grades).toMatchObject({ stored: 0, unchanged: 3 });
  }, 120_000);
});
