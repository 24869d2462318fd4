import { expect, it } from 'vitest';
import type { CampaignMark } from '../../../src/domain/campaigns.ts';
import { createCampaign, saveCampaignLabels } from '../../../src/services/campaigns/index.ts';
import { saveAnnotations } from '../../../src/services/web-annotation.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedCampaignWorld } from './fixture.ts';

/**
 * Sending the same labels again (a page saved twice, a client's retry) changed nothing, yet was reported
 * `updated: N` and rewrote every row's time. Identical labels are reported `unchanged` and left as they
 * are; only a label whose value (or version stamp) differs is updated.
 */
const marks = (b: string): CampaignMark[] => [
  { scale: 'verdict', item: 'a', label: 'correct' },
  { scale: 'verdict', item: 'b', label: b as 'correct' },
  { scale: 'binary', label: true },
];
const times = async (ctx: { database: { execute(q: string, p?: unknown[]): Promise<{ rows: any[] }> } }, answerId: number, annotator: string) =>
  (await ctx.database.execute(`select item_key, label, created_at::text as t from labels where answer_id = $1 and annotator = $2 order by item_key, campaign_id nulls first`, [answerId, annotator])).rows;

describeDb('identical labels sent again are unchanged', (ctx) => {
  it('a campaign save: the same marks → unchanged 3, updated 0; one changed mark → updated 1, unchanged 2', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'resend-run', n: 1, disagree: [] });
    const answerId = answerIds[0]!;
    await createCampaign(ctx.database, { name: 'resend', answers: { run: 'resend-run' }, scales: { verdict: true, binary: { question: 'Faithful?' } }, annotators: ['ann'], overlap: 1 });
    const save = (b: string) => saveCampaignLabels(ctx.database, { campaign: 'resend', answerId, annotator: 'ann', marks: marks(b) });
    expect(await save('correct')).toEqual({ created: 3, updated: 0, unchanged: 0, done: true });
    const before = await times(ctx, answerId, 'ann');
    expect(await save('correct')).toEqual({ created: 0, updated: 0, unchanged: 3, done: true });
    // Nothing was rewritten: each label keeps the time it was given.
    expect(await times(ctx, answerId, 'ann')).toEqual(before);
    expect(await save('missing')).toEqual({ created: 0, updated: 1, unchanged: 2, done: true });
    const after = await times(ctx, answerId, 'ann');
    expect(after.map((r) => [r.item_key, r.label])).toEqual([['a', 'correct'], ['answer:binary', 'true'], ['b', 'missing']]);
    expect(after.filter((r, i) => r.t !== before[i]!.t).map((r) => r.item_key)).toEqual(['b']);
  });

  it('plain annotations (the workspace without a campaign): the same again is unchanged', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'resend-plain', n: 1, disagree: [] });
    const answerId = answerIds[0]!;
    const m = [{ item: 'a', label: 'correct' }, { item: 'b', label: 'partial' }];
    expect(await saveAnnotations(ctx.database, { answerId, annotator: 'cy', marks: m })).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const before = await times(ctx, answerId, 'cy');
    expect(await saveAnnotations(ctx.database, { answerId, annotator: 'cy', marks: m })).toEqual({ created: 0, updated: 0, unchanged: 2 });
    expect(await times(ctx, answerId, 'cy')).toEqual(before);
    // One changed label of the two: updated 1, and its neighbour stays unchanged.
    expect(await saveAnnotations(ctx.database, { answerId, annotator: 'cy', marks: [m[0]!, { item: 'b', label: 'missing' }] })).toEqual({ created: 0, updated: 1, unchanged: 1 });
  });
});
