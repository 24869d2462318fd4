import { expect, it } from 'vitest';
import type { Database } from '../../../src/db/client.ts';
import type { CampaignMark } from '../../../src/domain/campaigns.ts';
import {
  adjudicate,
  campaignDisagreements,
  campaignProgress,
  createCampaign,
  exportCampaign,
  nextForAnnotator,
  saveCampaignLabels,
} from '../../../src/services/campaigns/index.ts';
import { calibrationLabels, rowsOnScale } from '../../../src/services/grading/calibration-labels.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedCampaignWorld } from './fixture.ts';

const ANNOTATORS = ['ann', 'bea', 'cai'];
const spec = (name: string, run: string, extra: Record<string, unknown> = {}) => ({
  name,
  answers: { run },
  scales: { verdict: true, binary: { question: 'Is the description faithful?' } },
  annotators: ANNOTATORS,
  adjudicators: ['judy'],
  overlap: 2,
  ...extra,
});

const marks = (b: string, pass: boolean): CampaignMark[] => [
  { scale: 'verdict', item: 'a', label: 'correct' },
  { scale: 'verdict', item: 'b', label: b as 'correct' },
  { scale: 'binary', label: pass },
];

async function campaignCounts(database: Database): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ['campaigns', 'campaign_answers', 'campaign_assignments', 'adjudications', 'labels']) {
    out[t] = Number((await database.execute(`select count(*)::int as n from ${t}`)).rows[0].n);
  }
  return out;
}

/** Distinct annotators with labels per answer of a campaign. */
async function labellersPerAnswer(database: Database, campaign: string): Promise<number[]> {
  const r = await database.execute(
    `select ca.answer_id, count(distinct l.annotator)::int as n from campaign_answers ca join campaigns c on c.id = ca.campaign_id
       left join labels l on l.answer_id = ca.answer_id and l.campaign_id = c.id where c.name = $1 group by ca.answer_id order by ca.answer_id`,
    [campaign],
  );
  return r.rows.map((x) => Number(x.n));
}

/** Each annotator takes the next answer and labels it, all three at once, until nobody gets anything. */
async function labelEverything(database: Database, campaign: string, label: (annotator: string, answerId: number) => CampaignMark[]): Promise<number> {
  let rounds = 0;
  for (;;) {
    const got = await Promise.all(
      ANNOTATORS.map(async (a) => {
        const next = await nextForAnnotator(database, { campaign, annotator: a });
        if (next) await saveCampaignLabels(database, { campaign, answerId: next.answerId, annotator: a, marks: label(a, next.answerId) });
        return next;
      }),
    );
    rounds++;
    if (got.every((g) => g === null)) return rounds;
  }
}

describeDb('annotation campaigns', (ctx) => {
  it('orders disagreements first, then a seeded audit slice, then the rest; each answer says why', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'order-run', n: 6, disagree: [2, 4] });
    const o = { order: { auditShare: 0.5, seed: 7 } };
    const c = await createCampaign(ctx.database, spec('order', 'order-run', o));
    expect(c.queued).toEqual({ disagreement: 2, audit: 2, rest: 2 });
    const p = await campaignProgress(ctx.database, 'order');
    expect(p.perAnswer.slice(0, 2).map((a) => [a.answerId, a.reason])).toEqual([[answerIds[2], 'disagreement'], [answerIds[4], 'disagreement']]);
    const audit = p.perAnswer.filter((a) => a.reason === 'audit').map((a) => a.answerId);
    const rest = p.perAnswer.filter((a) => a.reason === 'rest').map((a) => a.answerId);
    expect([...audit, ...rest].sort((x, y) => x - y)).toEqual([answerIds[0], answerIds[1], answerIds[3], answerIds[5]]);
    expect(rest).toEqual([...rest].sort((x, y) => x - y));
    // The same seed draws the same slice; the order is served as stored.
    await createCampaign(ctx.database, spec('order-again', 'order-run', o));
    const again = await campaignProgress(ctx.database, 'order-again');
    expect(again.perAnswer.map((a) => [a.answerId, a.reason])).toEqual(p.perAnswer.map((a) => [a.answerId, a.reason]));
    const first = await nextForAnnotator(ctx.database, { campaign: 'order', annotator: 'ann' });
    expect(first).toMatchObject({ answerId: answerIds[2], rank: 0, reason: 'disagreement', resumed: false, workspace: { why: 'disagreement', scales: ['verdict', 'binary'], hideReference: false, binaryQuestion: 'Is the description faithful?' } });
    // Not finished: the same answer again, as a resumed one.
    expect(await nextForAnnotator(ctx.database, { campaign: 'order', annotator: 'ann' })).toMatchObject({ answerId: answerIds[2], resumed: true });
    // Without disagreement-first, a disagreement is just another answer.
    const flat = await createCampaign(ctx.database, spec('order-flat', 'order-run', { order: { disagreementFirst: false, auditShare: 0 } }));
    expect(flat.queued).toEqual({ disagreement: 0, audit: 0, rest: 6 });
  });

  it('k = 2 with three annotators: every answer is labelled by exactly two, also when all fetch at once', async () => {
    await seedCampaignWorld(ctx.database, { run: 'k-run', n: 7, disagree: [] });
    await createCampaign(ctx.database, spec('k2', 'k-run'));
    await labelEverything(ctx.database, 'k2', () => marks('correct', true));
    expect(await labellersPerAnswer(ctx.database, 'k2')).toEqual([2, 2, 2, 2, 2, 2, 2]);
    const p = await campaignProgress(ctx.database, 'k2');
    expect(p.complete).toBe(7);
    expect(p.annotators.reduce((s, a) => s + a.done, 0)).toBe(14);
    expect(p.perAnswer.every((a) => a.annotators.length === 2 && new Set(a.annotators.map((h) => h.name)).size === 2)).toBe(true);

    // A burst: one answer, k = 2, three annotators asking in the same instant — two get it, one gets nothing.
    await seedCampaignWorld(ctx.database, { run: 'burst-run', n: 1, disagree: [] });
    await createCampaign(ctx.database, spec('burst', 'burst-run'));
    const got = await Promise.all([...ANNOTATORS, ...ANNOTATORS].map((a) => nextForAnnotator(ctx.database, { campaign: 'burst', annotator: a })));
    const holders = new Set(ANNOTATORS.filter((_, i) => got[i] !== null || got[i + 3] !== null));
    expect(holders.size).toBe(2);
    const r = await ctx.database.execute(`select assigned from campaign_answers ca join campaigns c on c.id = ca.campaign_id where c.name = 'burst'`);
    expect(Number(r.rows[0].assigned)).toBe(2);
    // The third cannot label around the queue either.
    const third = ANNOTATORS.find((a) => !holders.has(a))!;
    const answerId = got.find((g) => g !== null)!.answerId;
    await expect(saveCampaignLabels(ctx.database, { campaign: 'burst', answerId, annotator: third, marks: marks('correct', true) })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('a disagreement reaches the adjudicator, and the final label is what humans=adjudicated reports', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'adj-run', n: 2, disagree: [] });
    await createCampaign(ctx.database, { ...spec('adj', 'adj-run'), annotators: ['ann', 'bea'] });
    // ann says b is correct and the answer passes; bea says b is missing and it fails.
    for (const a of ['ann', 'bea']) {
      for (;;) {
        const next = await nextForAnnotator(ctx.database, { campaign: 'adj', annotator: a });
        if (!next) break;
        await saveCampaignLabels(ctx.database, { campaign: 'adj', answerId: next.answerId, annotator: a, marks: a === 'ann' ? marks('correct', true) : marks('missing', next.answerId !== answerIds[0]) });
      }
    }
    const waiting = await campaignDisagreements(ctx.database, 'adj', { waiting: true });
    expect(waiting.map((d) => [d.answerId, d.unit, d.labels.map((l) => `${l.annotator}=${l.label}`).join(' ')])).toEqual([
      [answerIds[0], 'answer:binary', 'ann=true bea=false'],
      [answerIds[0], 'b', 'ann=correct bea=missing'],
      [answerIds[1], 'b', 'ann=correct bea=missing'],
    ]);
    await expect(adjudicate(ctx.database, { campaign: 'adj', answerId: answerIds[0]!, unit: 'b', label: 'partial', adjudicator: 'ann', authority: 'role' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(adjudicate(ctx.database, { campaign: 'adj', answerId: answerIds[0]!, unit: 'a', label: 'partial', adjudicator: 'judy', authority: 'role' })).rejects.toMatchObject({ code: 'bad_input' });
    expect(await adjudicate(ctx.database, { campaign: 'adj', answerId: answerIds[0]!, unit: 'b', label: 'partial', adjudicator: 'judy', authority: 'role' })).toMatchObject({ label: 'partial', replaced: false });
    expect(await adjudicate(ctx.database, { campaign: 'adj', answerId: answerIds[0]!, unit: 'answer:binary', label: 'pass', adjudicator: 'root', authority: 'admin' })).toMatchObject({ label: 'true' });
    expect((await campaignDisagreements(ctx.database, 'adj', { waiting: true })).map((d) => [d.answerId, d.unit])).toEqual([[answerIds[1], 'b']]);

    const q = { key: 'externalId' as const, run: 'adj-run', judge: 'j1' };
    const humansOf = async (humans: 'each' | 'majority' | 'adjudicated', scale: 'verdict' | 'binary') =>
      // The scale's rows (rowsOnScale): labels of another scale come through to be set aside and counted by the report, whichever the human side.
      rowsOnScale(await calibrationLabels(ctx.database, { ...q, scale, humans }), scale).kept.filter((r) => r.kind === 'human').map((r) => `${r.answer}/${r.item ?? '-'} ${r.rater}=${r.label}`);
    expect(await humansOf('adjudicated', 'verdict')).toEqual(['q0/a adjudicated=correct', 'q0/b adjudicated=partial', 'q1/a adjudicated=correct']);
    // The majority leaves the tied units out; each keeps every annotator.
    expect(await humansOf('majority', 'verdict')).toEqual(['q0/a majority=correct', 'q1/a majority=correct']);
    expect(await humansOf('each', 'verdict')).toHaveLength(8);
    expect(await humansOf('adjudicated', 'binary')).toEqual(['q0/- adjudicated=true', 'q1/- adjudicated=true']);

    const exported = await exportCampaign(ctx.database, 'adj');
    expect(exported.rows.filter((r) => r.source === 'adjudication').map((r) => [r.unit, r.rater, r.label])).toEqual([['answer:binary', 'root', 'true'], ['b', 'judy', 'partial']]);
    expect(exported.rows.filter((r) => r.source === 'annotator')).toHaveLength(12);
  });

  it('bad input changes nothing', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'bad-run', n: 2, disagree: [] });
    await createCampaign(ctx.database, spec('bad', 'bad-run'));
    const before = await campaignCounts(ctx.database);
    await expect(createCampaign(ctx.database, spec('x', 'bad-run', { overlap: 4 }))).rejects.toThrow('overlap k = 4 needs at least 4 annotators');
    await expect(createCampaign(ctx.database, spec('x', 'no-such-run'))).rejects.toThrow('matches no answer');
    await expect(createCampaign(ctx.database, spec('x', 'bad-run', { scales: {} }))).rejects.toThrow('at least one scale');
    await expect(createCampaign(ctx.database, spec('x', 'bad-run', { scales: { numeric: { k: 3, anchors: ['1', '2'] } } }))).rejects.toThrow('exactly k = 3 anchors');
    await expect(createCampaign(ctx.database, spec('x', 'bad-run', { annotators: [99999, 'ann'] }))).rejects.toThrow('no active API key with id 99999');
    await expect(createCampaign(ctx.database, spec('bad', 'bad-run'))).rejects.toMatchObject({ code: 'conflict' });
    await expect(nextForAnnotator(ctx.database, { campaign: 'bad', annotator: 'mallory' })).rejects.toMatchObject({ code: 'forbidden' });
    // One bad mark among good ones: nothing saved, and no slot taken.
    await expect(
      saveCampaignLabels(ctx.database, { campaign: 'bad', answerId: answerIds[0]!, annotator: 'ann', marks: [...marks('correct', true), { scale: 'verdict', item: 'zz', label: 'correct' }, { scale: 'numeric', label: 3 }] }),
    ).rejects.toThrow("item 'zz': unknown item for this answer's rubric; scale 'numeric' is not one of this campaign's scales; nothing saved");
    expect(await campaignCounts(ctx.database)).toEqual(before);
  });
});
