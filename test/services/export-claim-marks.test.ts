import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, expect, it } from 'vitest';
import { answers, labels } from '../../src/db/schema.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { sentenceHash } from '../../src/services/claim-marks.ts';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importLabels } from '../../src/services/import-labels.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { saveLabel } from '../../src/services/labels.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { annotationTask } from '../../src/services/annotation-task.ts';
import { describeDb, openTestDatabase } from '../helpers/db.ts';

/**
 * A claim mark records the sentence it was given on (claim-marks.ts). An imported label file's mark and a
 * mark carried by a run export store the same as a mark made in the app: so after the split moves, an
 * imported mark is stale like the app's, never silently counted as a mark of whatever sentence n is now.
 */
const SPLIT_THEN = 'A red barn. Two sheep graze. A dog sleeps.';
const SPLIT_NOW = 'A red barn. It is noon. Two sheep graze. A dog sleeps.';
const dir = mkdtempSync(join(tmpdir(), 'assay-export-cm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const seed = async (db: Parameters<typeof importAnswersJsonl>[0], run: string) => {
  await importParsedRubrics(db, [{ id: 'cm-rubric', title: 'Farm', reference: SPLIT_THEN, items: [{ id: 'barn', text: 'A barn', weight: 1 }] }]);
  await importAnswersJsonl(db, { path: 'a.jsonl', content: `${JSON.stringify({ id: `${run}-1`, task: 'describe', rubric: 'cm-rubric', text: SPLIT_THEN })}\n` }, { run, model: 'm' });
  const [a] = await db.db.select({ id: answers.id }).from(answers).where(eq(answers.externalId, `${run}-1`));
  return a!.id;
};

describeDb('claim marks through label imports and run exports', (ctx) => {
  it('a label file\'s claim mark records today\'s sentence, as the app\'s does, and goes stale when the split moves', async () => {
    const id = await seed(ctx.database, 'cm-file');
    await importLabels(ctx.database, { path: 'l.jsonl', content: `${JSON.stringify({ answer_id: id, item: 'claim:1', rater: 'ann', label: 'false' })}\n` });
    await saveLabel(ctx.database, { answerId: id, item: 'claim:2', annotator: 'ann', label: 'true' });
    const rows = await ctx.database.db.select({ item: labels.itemKey, sentence: labels.claimSentence }).from(labels).where(eq(labels.answerId, id)).orderBy(labels.itemKey);
    expect(rows).toEqual([{ item: 'claim:1', sentence: sentenceHash('Two sheep graze.') }, { item: 'claim:2', sentence: sentenceHash('A dog sleeps.') }]);
    // Importing the same file again changes nothing.
    expect(await importLabels(ctx.database, { path: 'l.jsonl', content: `${JSON.stringify({ answer_id: id, item: 'claim:1', rater: 'ann', label: 'false' })}\n` })).toMatchObject({ inserted: 0, unchanged: 1, replaced: 0 });
    await ctx.database.db.update(answers).set({ text: SPLIT_NOW }).where(eq(answers.id, id));
    const t = await annotationTask(ctx.database, id, 'ann');
    // "It is noon." (now sentence 1) was never marked: the imported mark is stale, as the app's mark is.
    expect(t.claims.map((c) => c.label)).toEqual([null, null, null, null]);
    expect(t.claims.map((c) => c.stale?.label ?? null)).toEqual([null, 'false', 'true', null]);
  });

  it('a run export carries each mark\'s sentence (current, stale, unknown) exactly', async () => {
    const id = await seed(ctx.database, 'cm-export');
    await saveLabel(ctx.database, { answerId: id, item: 'claim:0', annotator: 'ann', label: 'true' });
    await ctx.database.db.insert(labels).values([
      { answerId: id, itemKey: 'claim:1', annotator: 'ann', label: 'false', claimSentence: sentenceHash('Something else.') },
      { answerId: id, itemKey: 'claim:2', annotator: 'ann', label: 'true', claimSentence: null },
    ]);
    const out = join(dir, `${ctx.url ? 'pg' : 'pglite'}-${Math.random().toString(36).slice(2)}`);
    await exportRun(ctx.database, { run: 'cm-export', out });
    const exported = readFileSync(join(out, 'labels.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(exported.map((l) => [l.item, l.claim_sentence])).toEqual([['claim:0', sentenceHash('A red barn.')], ['claim:1', sentenceHash('Something else.')], ['claim:2', null]]);
    const q = `select l.item_key, l.label, l.claim_sentence from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id where r.name = 'cm-export' order by 1`;
    const fresh = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
    try {
      await importRunExport(fresh.database, out);
      expect((await fresh.database.execute(q)).rows).toEqual((await ctx.database.execute(q)).rows);
      // Into the database it came from: unchanged.
      expect((await importRunExport(ctx.database, out)).labels).toEqual({ inserted: 0, unchanged: 3 });
    } finally {
      await fresh.drop();
    }
  });
});
