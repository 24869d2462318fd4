import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { answers, labels } from '../../src/db/schema.ts';
import { campaignProgress, createCampaign, exportCampaign, saveCampaignLabels } from '../../src/services/campaigns/index.ts';
import { importLabels } from '../../src/services/import-labels.ts';
import { listLabels, saveLabel } from '../../src/services/labels.ts';
import { annotationProgress } from '../../src/services/annotation-progress.ts';
import { annotationTask } from '../../src/services/annotation-task.ts';
import { annotatorLabels } from '../../src/services/annotator-labels.ts';
import { saveAnnotations } from '../../src/services/web-annotation.ts';
import { workspaceTask } from '../../src/services/workspace.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { seedCampaignWorld } from './campaigns/fixture.ts';

/**
 * A claim mark is stored by sentence index (`claim:<n>`); once the split of an answer moves (the
 * segmenter changed), sentence n is another sentence. The mark records which sentence it was given on,
 * and every reader shows a mark whose sentence moved as stale instead of on today's sentence n; an index
 * the answer's sentences do not have is refused by the API and by imports, with nothing written.
 */
const SPLIT_THEN = 'A red barn. Two sheep graze. A dog sleeps.';
// Today's split of "the same answer": a sentence appeared before the marked one, so sentence 1 is another.
const SPLIT_NOW = 'A red barn. It is noon. Two sheep graze. A dog sleeps.';
const moveSplit = (ctx: { database: { db: any } }, id: number) => ctx.database.db.update(answers).set({ text: SPLIT_NOW }).where(eq(answers.id, id));

describeDb('claim marks are resolved against the sentence they were given on', (ctx) => {
  it('a mark whose sentence moved is stale in the workspace, not a mark of the new sentence n', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'cm-plain', n: 2, disagree: [] });
    const id = answerIds[0]!;
    await ctx.database.db.update(answers).set({ text: SPLIT_THEN }).where(eq(answers.id, id));
    await saveAnnotations(ctx.database, { answerId: id, annotator: 'ann', marks: [{ claim: 1, label: 'false' }, { claim: 2, label: 'true' }] });
    expect((await annotationTask(ctx.database, id, 'ann')).claims.map((c) => c.label)).toEqual([null, 'false', 'true']);
    await moveSplit(ctx, id);
    const t = await annotationTask(ctx.database, id, 'ann');
    // "It is noon." (now sentence 1) was never marked; "Two sheep graze." (marked false) is sentence 2 now.
    expect(t.claims.map((c) => c.label)).toEqual([null, null, null, null]);
    expect(t.claims.map((c) => c.stale?.label ?? null)).toEqual([null, 'false', 'true', null]);
    const mine = await annotatorLabels(ctx.database, id, 'ann');
    expect(mine.claims).toEqual({});
    expect(mine.staleClaims.map((s) => s.index)).toEqual([1, 2]);
    const w = await workspaceTask(ctx.database, { answerId: id, annotator: 'ann' });
    expect(w.claims.map((c) => [c.label, c.stale])).toEqual([[null, null], [null, 'false'], [null, 'true'], [null, null]]);
    expect((await annotationProgress(ctx.database, 'ann', { run: 'cm-plain' })).rows.find((r) => r.answerId === id)).toMatchObject({ claims: 4, claimsMarked: 0 });
    // Re-marking sentence 1 replaces the stale mark with a current one.
    await saveAnnotations(ctx.database, { answerId: id, annotator: 'ann', marks: [{ claim: 1, label: 'unverifiable' }] });
    expect((await annotationTask(ctx.database, id, 'ann')).claims.map((c) => c.label)).toEqual([null, 'unverifiable', null, null]);
  });

  it('an old mark (sentence unknown) stays on n while n exists and is stale once it does not', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'cm-old', n: 1, disagree: [] });
    const id = answerIds[0]!;
    // Marks from before the sentence was recorded: claim_sentence null.
    await ctx.database.db.insert(labels).values([
      { answerId: id, itemKey: 'claim:0', annotator: 'ann', label: 'true' },
      { answerId: id, itemKey: 'claim:7', annotator: 'ann', label: 'false' },
    ]);
    const t = await annotationTask(ctx.database, id, 'ann');
    expect(t.claims.map((c) => [c.label, c.sentence])).toEqual([['true', 'unknown'], [null, null]]);
    expect(t.staleClaims).toEqual([{ index: 7, label: 'false', reason: 'out_of_range' }]);
  });

  it('the API and label imports refuse a claim index the answer does not have, writing nothing', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'cm-range', n: 1, disagree: [] });
    const id = answerIds[0]!;
    const before = await rowCounts(ctx.database);
    await expect(saveLabel(ctx.database, { answerId: id, item: 'claim:99', annotator: 'ann', label: 'true' })).rejects.toMatchObject({ code: 'bad_input' });
    const file = { path: 'l.jsonl', content: [{ answer_id: id, item: 'claim:1', rater: 'ann', label: 'true' }, { answer_id: id, item: 'claim:2', rater: 'ann', label: 'true' }].map((r) => JSON.stringify(r)).join('\n') + '\n' };
    await expect(importLabels(ctx.database, file)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/claim:2.*claims 0\.\.1/) });
    expect(await rowCounts(ctx.database)).toEqual(before);
    // An index in range is taken; the API records the sentence, an import does not know it.
    await saveLabel(ctx.database, { answerId: id, item: 'claim:1', annotator: 'ann', label: 'true' });
    const [row] = await ctx.database.db.select().from(labels).where(eq(labels.answerId, id));
    expect(row!.claimSentence).toMatch(/^[0-9a-f]{12}$/);
    expect((await listLabels(ctx.database, { answerIds: [id] })).labels).toHaveLength(1);
  });

  it('a campaign neither counts nor exports a stale claim mark as a mark of today\'s sentence n', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'cm-camp', n: 1, disagree: [] });
    const id = answerIds[0]!;
    await ctx.database.db.update(answers).set({ text: SPLIT_THEN }).where(eq(answers.id, id));
    await createCampaign(ctx.database, { name: 'cm-c', answers: { run: 'cm-camp' }, scales: { claims: true }, annotators: ['ann'], overlap: 1 });
    const saved = await saveCampaignLabels(ctx.database, { campaign: 'cm-c', answerId: id, annotator: 'ann', marks: [0, 1, 2].map((claim) => ({ scale: 'claims' as const, claim, label: 'true' as const })) });
    expect(saved.done).toBe(true);
    await moveSplit(ctx, id);
    // Re-derive done: three of four sentences "marked" by index, but two of those marks are stale.
    await saveCampaignLabels(ctx.database, { campaign: 'cm-c', answerId: id, annotator: 'ann', marks: [{ scale: 'claims', claim: 3, label: 'true' }] });
    expect((await campaignProgress(ctx.database, 'cm-c')).complete).toBe(0);
    const rows = (await exportCampaign(ctx.database, 'cm-c')).rows.map((r) => `${r.unit}=${r.label}${r.note ? ' (stale)' : ''}`);
    expect(rows).toEqual(['claim:0=true', 'claim:1=true (stale)', 'claim:2=true (stale)', 'claim:3=true']);
  });
});
