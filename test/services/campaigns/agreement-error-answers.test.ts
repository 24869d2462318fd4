import { expect, it } from 'vitest';
import { campaignAgreement, createCampaign, saveCampaignLabels } from '../../../src/services/campaigns/index.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedCampaignWorld } from './fixture.ts';

/**
 * A campaign's agreement leaves an error answer (status error: the model call failed) out, labels and
 * grades alike (calibrationLabelSet, 32bc9d6), and now says so. The case (fixture.ts): answers q0–q2, items
 * a and b, judges j1 and j2 grade every item correct, people bea and cai label every item correct: 6 units
 * per judge. q2 is then stored as an error answer (as an old database or an import holds one): 4 units per
 * judge, 4 human units, and a note counting 1 answer.
 */
const NOTE =
  "1 answer stored with status error (the model call failed) left out: there is no answer, so its grades (stored before grading skipped such answers, or imported) and people's labels compare nothing";

describeDb('campaign agreement: error answers left out and said', (ctx) => {
  it('4 units per judge, not 6; the note once', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'age', n: 3, disagree: [] });
    await createCampaign(ctx.database, { name: 'age-c', answers: { run: 'age' }, scales: { verdict: true }, annotators: ['bea', 'cai'], overlap: 2 });
    for (const answerId of answerIds) {
      for (const annotator of ['bea', 'cai']) {
        await saveCampaignLabels(ctx.database, { campaign: 'age-c', answerId, annotator, marks: [{ scale: 'verdict', item: 'a', label: 'correct' }, { scale: 'verdict', item: 'b', label: 'correct' }] });
      }
    }
    const before = await campaignAgreement(ctx.database, 'age-c');
    expect(before[0]!.report!.judgeReports.map((j) => j.vsMajority.n)).toEqual([6, 6]);
    expect(before[0]!.report!.notes.filter((n) => n.includes('status error'))).toEqual([]);
    await ctx.database.execute(`update answers set status = 'error' where id = $1`, [answerIds[2]]);
    const [verdict] = await campaignAgreement(ctx.database, 'age-c');
    expect(Object.fromEntries(verdict!.report!.judgeReports.map((j) => [j.rater, j.vsMajority.n]))).toEqual({ j1: 4, j2: 4 });
    expect(verdict!.report!.notes.filter((n) => n === NOTE)).toHaveLength(1);
  });
});
