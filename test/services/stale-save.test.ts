import { expect, it } from 'vitest';
import { createCampaign } from '../../src/services/campaigns/index.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { saveWorkspaceMarks, workspaceLabels, workspaceTask } from '../../src/services/workspace.ts';
import { describeDb } from '../helpers/db.ts';
import { seedCampaignWorld } from './campaigns/fixture.ts';

/**
 * Two tabs on one answer (or two people on one annotator key): each save says what its page last showed
 * for the unit (`prev`). A save over a unit that changed since is refused (conflict), writing nothing, so
 * the older tab cannot silently replace the newer labels; a fresh page and an untouched unit save as before.
 */
describeDb('a save from a stale page is refused', (ctx) => {
  it('plain queue: the second save from the same rendered state is a conflict and keeps the first', async () => {
    await seedExamples(ctx.database);
    const id = Number((await ctx.database.execute(`select id from answers where external_id = 'farmyard-describe'`)).rows[0]!.id);
    const q = { answerId: id, annotator: 'two-tabs' };
    const page = await workspaceTask(ctx.database, { ...q, extra: ['binary', 'numeric'] });
    const barn = page.items.find((i) => i.id === 'barn')!;
    expect(barn.label).toBeNull();
    // Tab 1 and tab 2 were rendered from the same state; tab 1 saves first.
    await saveWorkspaceMarks(ctx.database, { ...q, marks: [{ item: 'barn', label: 'correct', prev: barn.label }, { claim: 0, label: 'true', prev: null }, { binary: 'pass', prev: null }, { rating: 4, prev: null }] });
    for (const stale of [{ item: 'barn', label: 'missing', prev: null }, { claim: 0, label: 'false', prev: null }, { binary: 'fail', prev: null }, { rating: 2, prev: null }] as const) {
      const e = await saveWorkspaceMarks(ctx.database, { ...q, marks: [stale] }).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: 'conflict' });
      expect((e as Error).message).toMatch('item' in stale ? /item 'barn'/ : 'claim' in stale ? /claim 0/ : 'binary' in stale ? /binary/ : /rating/);
    }
    // Nothing of the stale saves was written, even beside a unit that had not changed.
    await expect(saveWorkspaceMarks(ctx.database, { ...q, marks: [{ item: 'farmer', label: 'partial', prev: null }, { item: 'barn', label: 'missing', prev: null }] })).rejects.toMatchObject({ code: 'conflict' });
    expect(await workspaceLabels(ctx.database, q)).toMatchObject({ items: { barn: 'correct' }, claims: { 0: 'true' }, binary: 'true', numeric: '4' });
    expect((await workspaceLabels(ctx.database, q)).items.farmer).toBeUndefined();
    // A unit nobody changed saves from the stale page; a page that saw tab 1's label saves over it.
    await saveWorkspaceMarks(ctx.database, { ...q, marks: [{ item: 'farmer', label: 'partial', prev: null }] });
    const fresh = await workspaceTask(ctx.database, { ...q, extra: ['binary', 'numeric'] });
    await saveWorkspaceMarks(ctx.database, { ...q, marks: [{ item: 'barn', label: 'missing', prev: fresh.items.find((i) => i.id === 'barn')!.label }, { binary: 'fail', prev: fresh.binary }, { rating: 2, prev: fresh.rating }] });
    expect(await workspaceLabels(ctx.database, q)).toMatchObject({ items: { barn: 'missing', farmer: 'partial' }, binary: 'false', numeric: '2' });
    // Re-sending what is already stored (a retried request) loses nothing and is not refused.
    await saveWorkspaceMarks(ctx.database, { ...q, marks: [{ item: 'barn', label: 'missing', prev: 'correct' }] });
  });

  it('campaign: the same, against what the campaign workspace showed', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'stale-run', n: 1, disagree: [] });
    const answerId = answerIds[0]!;
    await createCampaign(ctx.database, { name: 'stale-c', answers: { run: 'stale-run' }, scales: { verdict: true, binary: { question: 'Faithful?' } }, annotators: ['ann'], overlap: 1 });
    const q = { answerId, annotator: 'ann', campaign: 'stale-c' };
    const page = await workspaceTask(ctx.database, q);
    const a = page.items.find((i) => i.id === 'a')!;
    await saveWorkspaceMarks(ctx.database, { ...q, marks: [{ item: 'a', label: 'correct', prev: a.label }, { binary: 'pass', prev: page.binary }] });
    await expect(saveWorkspaceMarks(ctx.database, { ...q, marks: [{ item: 'a', label: 'missing', prev: a.label }] })).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/item 'a'/) });
    await expect(saveWorkspaceMarks(ctx.database, { ...q, marks: [{ binary: 'fail', prev: page.binary }] })).rejects.toMatchObject({ code: 'conflict' });
    expect(await workspaceLabels(ctx.database, q)).toMatchObject({ items: { a: 'correct' }, binary: 'true' });
    await saveWorkspaceMarks(ctx.database, { ...q, marks: [{ item: 'b', label: 'partial', prev: null }, { item: 'a', label: 'missing', prev: 'correct' }] });
    expect(await workspaceLabels(ctx.database, q)).toMatchObject({ items: { a: 'missing', b: 'partial' } });
  });
});
