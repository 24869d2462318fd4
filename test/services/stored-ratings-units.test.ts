import { expect, it } from 'vitest';
import { summarizeRatings } from '../../src/analysis/ratings.ts';
import { createCampaign, saveCampaignLabels } from '../../src/services/campaigns/index.ts';
import { storedRatings } from '../../src/services/stored-ratings.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * `assay analyze ratings --campaign C` over a campaign that spans runs: each rated answer is its own unit.
 * Run names and answer ids are free text, and the unit was named `run/answer id`, so answer 'v2/g1' of
 * run 'exp' and answer 'g1' of run 'exp/v2' (one model) were one unit: two people rating one each
 * counted as two raters of one answer (units 1, complete 1, exit 0), and one person rating both was
 * refused as rating an answer twice (exit 2 on stored data).
 */

describeDb('stored ratings: one unit per answer', (ctx) => {
  it('answers whose run and id spell the same path are two units', async () => {
    const d = ctx.database;
    const rubric = Number((await d.execute(`insert into rubrics (slug, title) values ('rr', 'R') returning id`)).rows[0]!.id);
    const ids: Record<string, number> = {};
    for (const [run, answer] of [['exp', 'v2/g1'], ['exp/v2', 'g1'], ['exp', 'other']] as const) {
      const runId = Number((await d.execute(`insert into runs (name, model) values ($1, 'm') on conflict (name) do update set model = excluded.model returning id`, [run])).rows[0]!.id);
      ids[`${run}|${answer}`] = Number((await d.execute(`insert into answers (run_id, external_id, task, rubric_id, text) values ($1, $2, 'describe', $3, 'text') returning id`, [runId, answer, rubric])).rows[0]!.id);
    }
    await createCampaign(d, { name: 'span', answers: { model: 'm' }, scales: { numeric: { k: 5, anchors: ['1', '2', '3', '4', '5'] } }, annotators: ['ann', 'bea'], overlap: 2 });
    const rate = (annotator: string, key: string, label: number) => saveCampaignLabels(d, { campaign: 'span', answerId: ids[key]!, annotator, marks: [{ scale: 'numeric', label }] });
    await rate('ann', 'exp|v2/g1', 5);
    await rate('bea', 'exp/v2|g1', 1);
    await rate('ann', 'exp|other', 3);
    await rate('bea', 'exp|other', 4);

    const rows = await storedRatings(d, { campaign: 'span' });
    expect(new Set(rows.map((r) => r.item)).size).toBe(3);
    const [a] = summarizeRatings(rows).agreement;
    // Three answers; only 'other' has both raters.
    expect([a!.units, a!.completeUnits, a!.alpha.interval.pairable]).toEqual([3, 1, 1]);

    // ann rates the second answer too: two answers, never one answer rated twice.
    await rate('ann', 'exp/v2|g1', 2);
    const again = summarizeRatings(await storedRatings(d, { campaign: 'span' }));
    expect(again.agreement[0]!.completeUnits).toBe(2);
    expect(again.summaries).toMatchObject([{ model: 'm', criterion: 'span', n: 5, items: 3, raters: 2 }]);
  }, 60_000);
});
