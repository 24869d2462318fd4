import { expect, it } from 'vitest';
import type { CampaignMark } from '../../../src/domain/campaigns.ts';
import {
  campaignAgreement,
  campaignDisagreements,
  campaignProgress,
  createCampaign,
  exportCampaign,
  nextForAnnotator,
  saveCampaignLabels,
} from '../../../src/services/campaigns/index.ts';
import { calibrationLabels, calibrationLabelSet } from '../../../src/services/grading/calibration-labels.ts';
import { versionNotes } from '../../../src/services/grading/label-versions.ts';
import { saveAnnotations } from '../../../src/services/web-annotation.ts';
import { workspaceTask } from '../../../src/services/workspace.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedCampaignWorld } from './fixture.ts';

/**
 * A label given in a campaign belongs to that campaign: one annotator in two campaigns over the same
 * answer keeps both labels, and each campaign's progress, disagreements, agreement, export and workspace
 * read its own (plain labels of a holder still count where the campaign has none of theirs).
 */
const spec = (name: string, run: string) => ({
  name,
  answers: { run },
  scales: { verdict: true, binary: { question: 'Faithful?' } },
  annotators: ['ann', 'bea'],
  overlap: 2,
});
const marks = (b: string, pass: boolean): CampaignMark[] => [
  { scale: 'verdict', item: 'a', label: 'correct' },
  { scale: 'verdict', item: 'b', label: b as 'correct' },
  { scale: 'binary', label: pass },
];

describeDb('campaign labels belong to their campaign', (ctx) => {
  it('labelling an answer in campaign B leaves what the annotator said in campaign A', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'own-run', n: 1, disagree: [] });
    const answerId = answerIds[0]!;
    const ca = (await createCampaign(ctx.database, spec('own-a', 'own-run'))).id;
    const cb = (await createCampaign(ctx.database, spec('own-b', 'own-run'))).id;
    // In A both agree: b correct, pass.
    for (const annotator of ['ann', 'bea']) await saveCampaignLabels(ctx.database, { campaign: 'own-a', answerId, annotator, marks: marks('correct', true) });
    // ann is served the answer in B too: it is not done there before she labels it in B.
    expect(await nextForAnnotator(ctx.database, { campaign: 'own-b', annotator: 'ann' })).toMatchObject({ answerId, resumed: false });
    expect((await campaignProgress(ctx.database, 'own-b')).perAnswer[0]!.annotators).toEqual([{ name: 'ann', done: false }]);
    const saved = await saveCampaignLabels(ctx.database, { campaign: 'own-b', answerId, annotator: 'ann', marks: marks('missing', false) });
    expect(saved).toMatchObject({ created: 3, updated: 0, done: true });

    // A still holds ann's own labels.
    const a = await exportCampaign(ctx.database, 'own-a');
    expect(a.rows.filter((r) => r.rater === 'ann').map((r) => `${r.unit}=${r.label}@${r.campaign_id}`)).toEqual(['a=correct', 'answer:binary=true', 'b=correct'].map((x) => `${x}@${ca}`));
    expect(await campaignDisagreements(ctx.database, 'own-a')).toEqual([]);
    const [verdict] = await campaignAgreement(ctx.database, 'own-a');
    expect(verdict!.report!.humanCeiling.pairs['ann ~ bea']).toMatchObject({ n: 2, agreement: 1 });
    expect((await campaignProgress(ctx.database, 'own-a')).complete).toBe(1);
    // B has ann's B labels only.
    const b = await exportCampaign(ctx.database, 'own-b');
    expect(b.rows.map((r) => `${r.rater}:${r.unit}=${r.label}@${r.campaign_id}`)).toEqual(['ann:a=correct', 'ann:answer:binary=false', 'ann:b=missing'].map((x) => `${x}@${cb}`));
    // The workspace of each campaign shows that campaign's labels.
    const inA = await workspaceTask(ctx.database, { answerId, annotator: 'ann', campaign: 'own-a' });
    const inB = await workspaceTask(ctx.database, { answerId, annotator: 'ann', campaign: 'own-b' });
    expect([inA.items.find((i) => i.id === 'b')!.label, inA.binary]).toEqual(['correct', 'pass']);
    expect([inB.items.find((i) => i.id === 'b')!.label, inB.binary]).toEqual(['missing', 'fail']);

    // Workspace-wide calibration: one label per person and unit (the newest), never two.
    const rows = (await calibrationLabels(ctx.database, { key: 'answerId', run: 'own-run', scale: 'verdict' })).filter((r) => r.kind === 'human');
    expect(rows.map((r) => `${r.rater}:${r.item}=${r.label}`).sort()).toEqual(['ann:a=correct', 'ann:b=missing', 'bea:a=correct', 'bea:b=correct']);
    // The one set aside with another label (ann's b in A) is counted and said; her equal labels of a are not.
    const set = await calibrationLabelSet(ctx.database, { key: 'answerId', run: 'own-run', scale: 'verdict' });
    expect(set.versions.superseded).toBe(1);
    expect(versionNotes(set.versions).join('\n')).toMatch(/^1 label\(s\) set aside: the same person labelled the unit again, differently/);
  });

  it("a plain label does not replace a campaign's, and counts where the campaign has none of the holder's", async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'plain-run', n: 1, disagree: [] });
    const answerId = answerIds[0]!;
    await createCampaign(ctx.database, spec('plain-c', 'plain-run'));
    await saveCampaignLabels(ctx.database, { campaign: 'plain-c', answerId, annotator: 'ann', marks: marks('correct', true) });
    // On the plain page ann says b is missing: a plain label beside the campaign's.
    await saveAnnotations(ctx.database, { answerId, annotator: 'ann', marks: [{ item: 'b', label: 'missing' }] });
    const ex = await exportCampaign(ctx.database, 'plain-c');
    expect(ex.rows.filter((r) => r.unit === 'b').map((r) => `${r.rater}=${r.label}`)).toEqual(['ann=correct']);
    // bea labelled only on the plain page, then holds the answer: her plain labels are the campaign's.
    await saveAnnotations(ctx.database, { answerId, annotator: 'bea', marks: [{ item: 'a', label: 'correct' }, { item: 'b', label: 'partial' }] });
    await nextForAnnotator(ctx.database, { campaign: 'plain-c', annotator: 'bea' });
    const d = await campaignDisagreements(ctx.database, 'plain-c');
    expect(d.map((x) => [x.unit, x.labels.map((l) => `${l.annotator}=${l.label}`).join(' ')])).toEqual([['b', 'ann=correct bea=partial']]);
    const plain = await workspaceTask(ctx.database, { answerId, annotator: 'ann' });
    expect(plain.items.find((i) => i.id === 'b')!.label).toBe('missing');
  });
});
