import { expect, it } from 'vitest';
import { campaignAgreement, createCampaign, saveCampaignLabels } from '../../../src/services/campaigns/index.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedCampaignWorld } from './fixture.ts';

/**
 * A campaign's agreement report (judge–human kappas) leaves an anchored judge's own example answers out of
 * its figures, as every calibration does (docs/judges.md "Excluded from calibration"), and says so in the
 * notes: before, j1's units fell from 6 to 4 with no word why. j1's judges row records that it was shown
 * q0 of the run (resolvedExamples, as grading writes it); j2 saw nothing.
 */
describeDb('campaign agreement: an anchored judge', (ctx) => {
  it('leaves its examples out and counts them in the notes', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'agx', n: 3, disagree: [] });
    await ctx.database.execute(`update judges set config = $1::jsonb where config_hash = 'j1-agx'`, [
      JSON.stringify({ resolvedExamples: [{ answerId: answerIds[0], run: 'agx', answer: 'q0', rubric: 'rb-agx', verdicts: [] }] }),
    ]);
    await createCampaign(ctx.database, { name: 'agx-c', answers: { run: 'agx' }, scales: { verdict: true }, annotators: ['bea', 'cai'], overlap: 2 });
    for (const answerId of answerIds) {
      for (const annotator of ['bea', 'cai']) {
        await saveCampaignLabels(ctx.database, { campaign: 'agx-c', answerId, annotator, marks: [{ scale: 'verdict', item: 'a', label: 'correct' }, { scale: 'verdict', item: 'b', label: 'correct' }] });
      }
    }
    const [verdict] = await campaignAgreement(ctx.database, 'agx-c');
    const units = Object.fromEntries(verdict!.report!.judgeReports.map((j) => [j.rater, j.vsMajority.n]));
    expect(units).toEqual({ j1: 4, j2: 6 });
    expect(verdict!.report!.notes).toContain("judge 'j1': 1 answer(s) of the campaign it was shown as examples are left out of its figures (the people's labels stay)");
    expect(verdict!.report!.notes.filter((n) => n.includes("'j2'"))).toEqual([]);
  });
});
