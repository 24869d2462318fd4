import { describe, expect, it } from 'vitest';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { loadCalibrationLabels } from '../../src/services/grading/calibration-labels.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { listLabels } from '../../src/services/labels.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { splitClaims } from '../../src/services/annotation-claims.ts';
import { annotationProgress } from '../../src/services/annotation-progress.ts';
import { annotationTask } from '../../src/services/annotation-task.ts';
import { annotatorLabels } from '../../src/services/annotator-labels.ts';
import { saveAnnotation } from '../../src/services/web-annotation.ts';
import { answerDetail, listAnswerRows } from '../../src/services/web-answer.ts';
import { rowsOfScale } from '../../src/services/web-calibration.ts';
import { describeDb } from '../helpers/db.ts';

describe('splitClaims', () => {
  it('is the sentence segmenter: wrapped lines joined, a line of no letter or digit no claim', () => {
    expect(splitClaims('A barn. A cow!  Is it red?\nGrid: 6 x 9\n\n--\nok')).toEqual(['A barn.', 'A cow!', 'Is it red?', 'Grid: 6 x 9', '-- ok']);
    expect(splitClaims('A big red\nbarn. Several\npink pigs.\n\n---')).toEqual(['A big red barn.', 'Several pink pigs.']);
    expect(splitClaims('')).toEqual([]);
  });
});

describe('rowsOfScale', () => {
  it('keeps item labels of the verdict scale only, setting claim marks and other scales aside', () => {
    const rows = [
      { answer: '1', item: 'barn', rater: 'a', kind: 'human' as const, label: 'correct' },
      { answer: '1', item: 'claim:0', rater: 'a', kind: 'human' as const, label: 'true' },
      { answer: '1', rater: 'a', kind: 'human' as const, label: 'pass' },
      { answer: '1', item: 'barn', rater: 'b', kind: 'human' as const, label: 'bogus' },
    ];
    expect(rowsOfScale(rows, 'verdict')).toEqual({ kept: [rows[0]], skipped: 3 });
    expect(rowsOfScale(rows, 'binary')).toEqual({ kept: [rows[2]], skipped: 3 });
  });
});

describeDb('annotation workflow services', (ctx) => {
  let farmyard = 0;
  let other = 0;
  it('progress: a half-labelled answer stays in the queue and is resumed first', async () => {
    await seedExamples(ctx.database);
    await importAnswersJsonl(ctx.database, {
      path: 'extra.jsonl',
      content: JSON.stringify({ id: 'second', run: 'extra', model: 'm', task: 'describe', rubric: 'farmyard-54', text: 'A red barn. Three pigs.' }),
    });
    const ids = await ctx.database.execute(`select a.id, a.external_id as e from answers a where a.external_id in ('farmyard-describe', 'second') order by a.id`);
    farmyard = Number(ids.rows[0].id);
    other = Number(ids.rows[1].id);
    const before = await annotationProgress(ctx.database, 'alice');
    expect(before.done).toBe(0);
    expect(before.next).toBe(farmyard);
    const t = await annotationTask(ctx.database, other, 'alice');
    expect(t.items.length).toBe(17);
    expect(t.claims.map((c) => c.text)).toEqual(['A red barn.', 'Three pigs.']);
    await saveAnnotation(ctx.database, { answerId: other, annotator: 'alice', item: 'barn', label: 'correct' });
    const mid = await annotationProgress(ctx.database, 'alice');
    expect(mid.started).toBe(1);
    expect(mid.next).toBe(other);
    expect(mid.rows.find((r) => r.answerId === other)).toMatchObject({ labelled: 1, items: 17, done: false });
    for (const it of t.items) await saveAnnotation(ctx.database, { answerId: other, annotator: 'alice', item: it.id, label: 'missing' });
    // Every item labelled, the claims still open: not done yet (every asked scale counts), resumed first.
    const after = await annotationProgress(ctx.database, 'alice');
    expect(after.done).toBe(0);
    expect(after.started).toBe(1);
    expect(after.next).toBe(other);
    // Another annotator's queue is untouched.
    expect((await annotationProgress(ctx.database, 'bob')).done).toBe(0);
  });

  it('claim marks are labels claim:<n>; bad verdicts and claim numbers are bad input and write nothing', async () => {
    expect(await saveAnnotation(ctx.database, { answerId: other, annotator: 'alice', claim: 1, label: 'false' })).toEqual({ created: true });
    expect(await saveAnnotation(ctx.database, { answerId: other, annotator: 'alice', claim: 1, label: 'true' })).toEqual({ created: false });
    const mine = await annotatorLabels(ctx.database, other, 'alice');
    expect(mine.claims).toEqual({ 1: 'true' });
    expect(mine.items.barn).toBe('missing');
    const before = (await listLabels(ctx.database, { annotator: 'alice' })).total;
    await expect(saveAnnotation(ctx.database, { answerId: other, annotator: 'alice', claim: 2, label: 'true' })).rejects.toMatchObject({ code: 'bad_input' });
    await expect(saveAnnotation(ctx.database, { answerId: other, annotator: 'alice', item: 'barn', label: 'true' })).rejects.toMatchObject({ code: 'bad_input' });
    await expect(saveAnnotation(ctx.database, { answerId: other, annotator: 'alice', item: 'no-such-item', label: 'correct' })).rejects.toMatchObject({ code: 'bad_input' });
    await expect(saveAnnotation(ctx.database, { answerId: 999999, annotator: 'alice', item: 'barn', label: 'correct' })).rejects.toMatchObject({ code: 'not_found' });
    expect((await listLabels(ctx.database, { annotator: 'alice' })).total).toBe(before);
    expect(before).toBe(17 + 1);
  });

  it('`assay calibrate --run` labels leave claim marks out', async () => {
    await gradeAnswer(ctx.database, { answer: { id: other }, judge: 'lexical' });
    const rows = await loadCalibrationLabels(ctx.database, { run: 'extra', judge: 'lexical' });
    expect(rows.filter((r) => r.kind === 'human')).toHaveLength(17);
    expect(rows.some((r) => r.item?.startsWith('claim:'))).toBe(false);
  });

  it('answer detail and list: an assembly has its puzzle and score; labels are counted per annotator', async () => {
    const shifted = Number((await ctx.database.execute(`select id from answers where external_id = 'farmyard-shifted'`)).rows[0].id);
    const d = await answerDetail(ctx.database, shifted);
    expect(d.puzzle?.id).toBe('farmyard-6x9');
    expect(d.assembly?.direct).toBe(0);
    expect(d.grades).toEqual([]);
    const list = await listAnswerRows(ctx.database, { run: 'extra', limit: 10, offset: 0 });
    expect(list.total).toBe(1);
    expect(list.rows[0]).toMatchObject({ answer: 'second', humanLabels: 1, grades: 1 });
    expect(list.rows[0]!.f1).toBeTypeOf('number');
  });
});
