import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadRunCalibration } from '../../../src/services/grading/calibration-labels.ts';
import { gradeAnswer } from '../../../src/services/grading/grade-answer.ts';
import { describeDb } from '../../helpers/db.ts';
import { farmyard, farmyardAnswer } from '../../judges/harness.ts';

/**
 * `assay calibrate --run R --judge PANEL` (and the calibration page) report the panel beside its members:
 * the members of the panel configurations whose grades the report reads, not every member the panel file
 * ever listed. A member dropped from the file took no part in the votes the report compares it with.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-panel-calmem-'));
const lexical = (id: string, correct: number) => `id: ${id}\nprovider: lexical\nmodel: lexical-overlap-v1\nmode: rubric\nlexical: { correct: ${correct}, partial: 0.2 }\n`;
writeFileSync(join(dir, 'cm-a.yaml'), lexical('cm-a', 0.6));
writeFileSync(join(dir, 'cm-b.yaml'), lexical('cm-b', 0.8));
writeFileSync(join(dir, 'cm-c.yaml'), lexical('cm-c', 0.4));
const panel = join(dir, 'cm-panel.yaml');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeDb('the members a panel is calibrated with', (ctx) => {
  it('after the panel file swaps a member and the run is graded again, the dropped member is not reported as a member', async () => {
    writeFileSync(panel, 'id: cm-panel\nprovider: panel\nmembers: [cm-a, cm-b]\n');
    const texts = [farmyardAnswer, farmyardAnswer.split('.').slice(0, 2).join('.')];
    const ids: number[] = [];
    for (const [i, text] of texts.entries()) {
      ids.push((await gradeAnswer(ctx.database, { judge: panel, rubric: farmyard, answer: { text, run: 'cal-members', externalId: `x${i}` } })).answerId);
    }
    expect((await loadRunCalibration(ctx.database, { run: 'cal-members', judge: 'cm-panel' })).judges).toEqual(['cm-panel', 'cm-a', 'cm-b']);

    // The file now lists cm-c instead of cm-b: a new panel configuration, which grades every answer again.
    writeFileSync(panel, 'id: cm-panel\nprovider: panel\nmembers: [cm-a, cm-c]\n');
    for (const id of ids) expect((await gradeAnswer(ctx.database, { judge: panel, answer: { id } })).judge.model).toBe('cm-a+cm-c');
    // A person's label of each answer: the report's rows are the grades of labelled answers.
    for (const id of ids) await ctx.database.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, 'barn', 'h1', 'human', 'correct')`, [id]);
    const cal = await loadRunCalibration(ctx.database, { run: 'cal-members', judge: 'cm-panel' });
    expect(cal.judges).toEqual(['cm-panel', 'cm-a', 'cm-c']);
    // cm-b's grades are still stored (its own), but no row of the report is cm-b's.
    expect(cal.rows.filter((r) => r.rater === 'cm-b')).toEqual([]);
    expect(new Set(cal.rows.map((r) => r.rater))).toEqual(new Set(['h1', 'cm-panel', 'cm-a', 'cm-c']));
  });
});
