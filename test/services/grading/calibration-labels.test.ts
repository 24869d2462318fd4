import { expect, it } from 'vitest';
import { labels } from '../../../src/db/schema.ts';
import { calibrationLabels, loadCalibrationLabels } from '../../../src/services/grading/calibration-labels.ts';
import { gradeAnswer } from '../../../src/services/grading/grade-answer.ts';
import { describeDb } from '../../helpers/db.ts';
import { farmyard, farmyardAnswer } from '../../judges/harness.ts';

/** One builder of calibration labels: the CLI's rows (keyed by the answer's id in its run) and the reports' (database id) differ only in that key. */
describeDb('calibration labels', (ctx) => {
  it('keys rows by external or database id, filters figures by scale, and keeps claim marks out', async () => {
    const g = await gradeAnswer(ctx.database, { judge: 'lexical', rubric: farmyard, answer: { text: farmyardAnswer, run: 'cal-run', externalId: 'farm-1' } });
    await ctx.database.db.insert(labels).values([
      { answerId: g.answerId, itemKey: 'barn', annotator: 'ann', kind: 'human' as const, label: 'partial' },
      { answerId: g.answerId, itemKey: 'claim:0', annotator: 'ann', kind: 'human' as const, label: 'false' },
    ]);
    const byExternal = await calibrationLabels(ctx.database, { key: 'externalId', run: 'cal-run', judge: 'lexical' });
    const byId = await calibrationLabels(ctx.database, { key: 'answerId', run: 'cal-run', judge: 'lexical' });
    expect(byId).toEqual(byExternal.map((r) => ({ ...r, answer: String(g.answerId) })));
    expect(byExternal).toContainEqual({ answer: 'farm-1', item: 'barn', model: 'unknown', rater: 'ann', kind: 'human', label: 'partial', rubric: farmyard.id });
    expect(byExternal.filter((r) => r.kind === 'judge')).toHaveLength(farmyard.items.length);
    expect(byExternal.some((r) => r.item?.startsWith('claim:'))).toBe(false);
    expect(await loadCalibrationLabels(ctx.database, { run: 'cal-run', judge: 'lexical' })).toEqual(byExternal);

    // On the numeric scale a grade is its f1; only answers a human labelled on that scale, when asked
    // (the item verdict alone leaves the judge's F1 nothing to compare to).
    const numericOf = () => calibrationLabels(ctx.database, { key: 'answerId', scale: 'numeric', humanLabelledOnly: true, run: 'cal-run' });
    expect((await numericOf()).filter((r) => r.kind === 'judge')).toEqual([]);
    await ctx.database.db.insert(labels).values({ answerId: g.answerId, itemKey: 'answer:numeric', annotator: 'ann', kind: 'human' as const, label: '4' });
    const numeric = await numericOf();
    expect(numeric.filter((r) => r.kind === 'human' && r.item === undefined)).toEqual([{ answer: String(g.answerId), model: 'unknown', rater: 'ann', kind: 'human', label: 4, rubric: farmyard.id }]);
    expect(numeric.filter((r) => r.kind === 'judge')).toEqual([{ answer: String(g.answerId), model: 'unknown', rater: 'lexical', kind: 'judge', label: g.f1, rubric: farmyard.id }]);
    await expect(loadCalibrationLabels(ctx.database, { run: 'cal-run', judge: 'nobody' })).rejects.toThrow("judge 'nobody' has graded nothing");
  });
});
