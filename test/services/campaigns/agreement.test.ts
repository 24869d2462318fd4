import { expect, it } from 'vitest';
import { campaignAgreement, createCampaign, saveCampaignLabels } from '../../../src/services/campaigns/index.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedCampaignWorld } from './fixture.ts';

/**
 * The campaign page's agreement per scale reads each scale's own labels: the item verdicts on the
 * verdict scale, the pass/fail on the binary scale — one campaign asking both gives both reports.
 */
describeDb('campaign agreement per scale', (ctx) => {
  it('verdict and binary side by side: each report over its own labels, hand-counted', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'agree-run', n: 2, disagree: [] });
    await createCampaign(ctx.database, {
      name: 'agree',
      answers: { run: 'agree-run' },
      scales: { verdict: true, binary: { question: 'Faithful?' } },
      annotators: ['ann', 'bea'],
      overlap: 2,
    });
    // Items: ann and bea agree on 3 of the 4 (q1 item b: correct against missing). Pass/fail: they agree on q0, not on q1.
    const given: Record<string, Array<[string, string, boolean]>> = { ann: [['correct', 'correct', true], ['correct', 'correct', true]], bea: [['correct', 'correct', true], ['correct', 'missing', false]] };
    for (const [annotator, rows] of Object.entries(given)) {
      for (const [i, [a, b, pass]] of rows.entries()) {
        await saveCampaignLabels(ctx.database, {
          campaign: 'agree',
          answerId: answerIds[i]!,
          annotator,
          marks: [{ scale: 'verdict', item: 'a', label: a as 'correct' }, { scale: 'verdict', item: 'b', label: b as 'correct' }, { scale: 'binary', label: pass }],
        });
      }
    }
    const [verdict, binary] = await campaignAgreement(ctx.database, 'agree');
    expect(verdict!.scale).toBe('verdict');
    expect(verdict!.report).toMatchObject({ units: 4, humans: ['ann', 'bea'], judges: ['j1', 'j2'] });
    expect(verdict!.report!.humanCeiling.pairs['ann ~ bea']).toMatchObject({ n: 4, agreement: 0.75 });
    expect(binary!.scale).toBe('binary');
    expect(binary!.reason).toBeUndefined();
    // The lexical judges give no pass/fail, so the binary report is the people's alone.
    expect(binary!.report).toMatchObject({ units: 2, humans: ['ann', 'bea'], judges: [] });
    expect(binary!.report!.humanCeiling.pairs['ann ~ bea']).toMatchObject({ n: 2, agreement: 0.5 });
  });
});
