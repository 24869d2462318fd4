import { describe, expect, it } from 'vitest';
import { seedExamples } from '../../src/services/seed.ts';
import { describeThenSolveReport } from '../../src/services/report-analysis.ts';
import { pageCalibration } from '../../src/services/web-calibration.ts';
import { saveWorkspaceMarks, workspaceTask } from '../../src/services/workspace.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * The workspace's whole-answer labels reach the reports that read them: pass/fail fills
 * /calibration?scale=binary and /describe-then-solve?perception=label, the 1..5 rating
 * /calibration?scale=numeric; and the workspace resumes on the first control without a label.
 */
describeDb('workspace labels in the reports', (ctx) => {
  it('pass/fail and ratings from the plain workspace feed calibration and describe-then-solve', async () => {
    await seedExamples(ctx.database);
    const described = await ctx.database.execute(
      `select a.id, r.name as run from answers a join runs r on r.id = a.run_id where a.task = 'describe' and a.text is not null and a.puzzle_id is not null
          and exists (select 1 from answers b where b.run_id = a.run_id and b.task = 'assemble') order by a.id`,
    );
    const ids = described.rows.map((r) => Number(r.id));
    expect(ids.length).toBeGreaterThan(3);
    const before = await describeThenSolveReport(ctx.database, { perception: 'label' });
    const beforeN = before.report?.overall.n ?? 0;
    // Two annotators agree on every answer: pass for the first half, fail for the rest; ratings 5 and 2.
    for (const [i, answerId] of ids.entries()) {
      for (const annotator of ['ann-x', 'ann-y']) {
        await saveWorkspaceMarks(ctx.database, { answerId, annotator, marks: [{ binary: i < ids.length / 2 ? 'pass' : 'fail' }, { rating: i < ids.length / 2 ? 5 : 2 }] });
      }
    }
    const dts = await describeThenSolveReport(ctx.database, { perception: 'label' });
    expect(dts.report).not.toBeNull();
    expect(dts.report!.overall.n - beforeN).toBe(ids.length);
    const binary = await pageCalibration(ctx.database, { scale: 'binary' });
    expect(binary.report?.humans).toEqual(expect.arrayContaining(['ann-x', 'ann-y']));
    const numeric = await pageCalibration(ctx.database, { scale: 'numeric' });
    expect(numeric.report?.humans).toEqual(expect.arrayContaining(['ann-x', 'ann-y']));
  });

  it('the task opens on the first control without a label and never carries judge output', async () => {
    const id = Number((await ctx.database.execute(`select id from answers where external_id = 'farmyard-describe'`)).rows[0]!.id);
    const t0 = await workspaceTask(ctx.database, { answerId: id, annotator: 'ann-z', extra: ['binary', 'numeric'] });
    expect(t0.firstOpen).toBe('item:barn');
    expect(t0.claims.map((c) => c.text.slice(0, 12))).toHaveLength(10);
    await saveWorkspaceMarks(ctx.database, { answerId: id, annotator: 'ann-z', marks: t0.items.map((i) => ({ item: i.id, label: 'correct' })) });
    expect((await workspaceTask(ctx.database, { answerId: id, annotator: 'ann-z' })).firstOpen).toBe('claim:0');
    await saveWorkspaceMarks(ctx.database, { answerId: id, annotator: 'ann-z', marks: t0.claims.map((c) => ({ claim: c.index, label: 'true' })) });
    expect((await workspaceTask(ctx.database, { answerId: id, annotator: 'ann-z' })).firstOpen).toBeNull();
    const t = await workspaceTask(ctx.database, { answerId: id, annotator: 'ann-z', extra: ['binary', 'numeric'] });
    expect(t.firstOpen).toBe('binary');
    expect(Object.keys(t).sort()).toEqual(['answer', 'answerId', 'binary', 'claims', 'firstOpen', 'items', 'model', 'rating', 'reference', 'rubric', 'run', 'spec', 'text']);
    expect(t.rubric.image).toBe('images/farmyard.png');
    // One bad mark refuses the save and writes nothing.
    await expect(saveWorkspaceMarks(ctx.database, { answerId: id, annotator: 'ann-z', marks: [{ binary: 'pass' }, { rating: 9 }] })).rejects.toMatchObject({ code: 'bad_input' });
    expect((await workspaceTask(ctx.database, { answerId: id, annotator: 'ann-z', extra: ['binary'] })).binary).toBeNull();
  });
});
