import { beforeAll, expect, it } from 'vitest';
import { createKey } from '../../src/services/keys.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { seedCampaignWorld } from '../services/campaigns/fixture.ts';
import { useApi } from './app-fixture.ts';

/**
 * A campaign's labels over HTTP, where they used to go silently wrong: labels of an annotator who does
 * not hold the answer, items of an older rubric version, and assignments left "done" once the units the
 * campaign asks for changed (a new rubric version) or lost their labels.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const json = async (r: Promise<Response>): Promise<Json> => (await r).json();
const verdicts = (a: string, b: string) => [
  { scale: 'verdict', item: 'a', label: a },
  { scale: 'verdict', item: 'b', label: b },
];

describeDb('campaign label integrity over HTTP', (ctx) => {
  const api = useApi(ctx);
  const key: Record<string, string> = {};
  beforeAll(async () => {
    for (const name of ['ann', 'bea', 'cai', 'judy']) key[name] = (await createKey(ctx.database, { scopes: ['annotate'], name })).key;
  });
  const create = async (name: string, run: string) => {
    const spec = { name, answers: { run }, scales: { verdict: true }, annotators: ['ann', 'bea', 'cai'], adjudicators: ['judy'], overlap: 2 };
    expect((await api.call(api.keys.admin, 'POST', '/api/campaigns', { body: spec })).status).toBe(201);
  };
  const save = (who: string, campaign: string, answerId: number, marks: unknown[]) => api.call(key[who]!, 'POST', `/api/campaigns/${campaign}/labels`, { body: { answerId, marks } });
  const agreementRows = async (campaign: string) =>
    (await json(api.call(api.keys.admin, 'GET', `/campaigns/${campaign}?table=agreement&format=json`))).rows.map((r: Json) => [r.between, r.value, r.n]);

  it('a label of an annotator who does not hold the answer is no label of the campaign (k = 2 stays 2)', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'hold-run', n: 2, disagree: [] });
    const [q0, q1] = answerIds as [number, number];
    await create('hold', 'hold-run');
    for (const who of ['ann', 'bea']) expect(await json(save(who, 'hold', q0, verdicts('correct', 'missing')))).toEqual({ created: 2, updated: 0, unchanged: 0, done: true });
    // cai is refused a third slot of q0, and then labels it on the plain annotation route, which has no k.
    expect((await save('cai', 'hold', q0, verdicts('correct', 'correct'))).status).toBe(409);
    expect((await api.call(key.cai!, 'POST', '/api/annotations', { body: { answerId: q0, item: 'b', label: 'correct' } })).status).toBe(200);
    // ann labels q1 on the plain page before she takes it: a label of an answer she holds counts.
    for (const item of ['a', 'b']) expect((await api.call(key.ann!, 'POST', '/api/annotations', { body: { answerId: q1, item, label: 'correct' } })).status).toBe(200);
    expect((await json(api.call(key.ann!, 'GET', '/api/campaigns/hold/next'))).next).toMatchObject({ answerId: q1 });

    // Before: cai's label made b of q0 a disagreement of three annotators (k = 2), waiting for adjudication,
    // was exported as a campaign label and counted in alpha and the pairs.
    expect((await json(api.call(api.keys.admin, 'GET', '/api/campaigns/hold/disagreements'))).disagreements).toEqual([]);
    const adj = await api.call(key.judy!, 'POST', '/api/campaigns/hold/adjudications', { body: { answerId: q0, unit: 'b', label: 'correct' } });
    expect(adj.status).toBe(400);
    const rows = (await json(api.call(api.keys.admin, 'GET', '/api/campaigns/hold/export'))).rows.map((r: Json) => `${r.answer}/${r.unit} ${r.rater}=${r.label} ${r.campaign_id ?? '-'}`);
    expect(rows).toEqual(['q0/a ann=correct 1', 'q0/a bea=correct 1', 'q0/b ann=missing 1', 'q0/b bea=missing 1', 'q1/a ann=correct -', 'q1/b ann=correct -']);
    // By hand: ann and bea agree on both units of q0 (1, 1 and 0, 0 points): alpha 1, kappa 1 over 2 units.
    // The majority is correct on q0/a and both q1 units (ann alone), missing on q0/b; the judges say correct
    // on all four: agreement 3/4, chance 3/4, kappa 0.
    expect(await agreementRows('hold')).toEqual([
      ['humans (ann, bea)', 1, 2],
      ['ann ~ bea', 1, 2],
      ['judge j1 ~ human majority', 0, 4],
      ['judge j2 ~ human majority', 0, 4],
    ]);
    const progress = await json(api.call(api.keys.admin, 'GET', '/api/campaigns/hold'));
    expect(progress.perAnswer.map((p: Json) => p.annotators)).toEqual([
      [{ name: 'ann', done: true }, { name: 'bea', done: true }],
      [{ name: 'ann', done: true }],
    ]);
    // cai's label is not lost: it is a plain label of hers.
    const hers = await json(api.call(api.keys.read, 'GET', '/api/labels?annotator=cai'));
    expect(hers.items.map((l: Json) => [l.answerId, l.item, l.label])).toEqual([[q0, 'b', 'correct']]);
  });

  const newVersion = async (run: string) => {
    const v2 = { id: `rb-${run}`, title: 'Farm', reference: 'A red barn and a dog.', items: [{ id: 'a', text: 'a red barn', weight: 1 }, { id: 'c', text: 'a dog', weight: 1 }] };
    expect(await json(api.call(api.keys.write, 'POST', '/api/rubrics', { body: v2 }))).toMatchObject({ versioned: 1 });
  };

  it('a new rubric version drops an item: a label of it is refused (campaign and plain saves), nothing written', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'drop-run', n: 1, disagree: [] });
    const q0 = answerIds[0]!;
    await create('drop', 'drop-run');
    expect(await json(save('ann', 'drop', q0, verdicts('correct', 'correct')))).toMatchObject({ done: true });
    await newVersion('drop-run');
    // Before: the save of b was accepted (200) as a label of an item the workspace no longer shows or asks.
    const before = await rowCounts(ctx.database);
    const refused = await save('ann', 'drop', q0, [{ scale: 'verdict', item: 'b', label: 'missing' }]);
    expect(refused.status).toBe(400);
    const message = `answer ${q0}: item 'b': not an item of version 2 (the current one) of this answer's rubric; nothing saved`;
    expect(((await refused.json()) as Json).error).toEqual({ code: 'bad_input', message });
    const plain = await api.call(key.ann!, 'PUT', `/annotate/${q0}/labels`, { body: { item: 'b', label: 'missing' } });
    expect([plain.status, ((await plain.json()) as Json).error.message]).toEqual([400, message]);
    const unknown = await save('ann', 'drop', q0, [{ scale: 'verdict', item: 'zz', label: 'missing' }]);
    expect(((await unknown.json()) as Json).error.message).toBe(`answer ${q0}: item 'zz': unknown item for this answer's rubric; nothing saved`);
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(await json(save('ann', 'drop', q0, [{ scale: 'verdict', item: 'c', label: 'correct' }]))).toEqual({ created: 1, updated: 0, unchanged: 0, done: true });
  });

  it('a new rubric version adds an item: finished answers are open again and come back to their annotators', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'add-run', n: 1, disagree: [] });
    const q0 = answerIds[0]!;
    await create('add', 'add-run');
    for (const who of ['ann', 'bea']) expect(await json(save(who, 'add', q0, verdicts('correct', 'correct')))).toMatchObject({ done: true });
    await newVersion('add-run');
    // Item c has nobody's label yet: before, both stayed "done", the answer "complete", and nobody was ever asked c.
    const progress = await json(api.call(api.keys.admin, 'GET', '/api/campaigns/add'));
    expect([progress.complete, progress.perAnswer[0].annotators]).toEqual([0, [{ name: 'ann', done: false }, { name: 'bea', done: false }]]);
    expect((await json(api.call(key.ann!, 'GET', '/api/campaigns/add/next'))).next).toMatchObject({ answerId: q0, resumed: true });
    expect(await json(save('ann', 'add', q0, [{ scale: 'verdict', item: 'c', label: 'missing' }]))).toEqual({ created: 1, updated: 0, unchanged: 0, done: true });
    expect((await json(api.call(api.keys.admin, 'GET', '/api/campaigns/add'))).perAnswer[0].annotators).toEqual([{ name: 'ann', done: true }, { name: 'bea', done: false }]);
  });

  it('k = 2 with one annotator\'s labels deleted: the answer is no longer complete and comes back to her', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'del-run', n: 1, disagree: [] });
    const q0 = answerIds[0]!;
    await create('del', 'del-run');
    for (const who of ['ann', 'bea']) await save(who, 'del', q0, verdicts('correct', 'partial'));
    expect((await json(api.call(api.keys.admin, 'GET', '/api/campaigns/del'))).complete).toBe(1);
    await ctx.database.execute(`delete from labels where annotator = 'bea' and answer_id = $1`, [q0]);
    const progress = await json(api.call(api.keys.admin, 'GET', '/api/campaigns/del'));
    expect([progress.complete, progress.annotators.map((a: Json) => [a.name, a.assigned, a.done])]).toEqual([0, [['ann', 1, 1], ['bea', 1, 0], ['cai', 0, 0]]]);
    // Her slot is kept for her (cai cannot take a third), and her next answer is this one again.
    expect((await json(api.call(key.cai!, 'GET', '/api/campaigns/del/next'))).next).toBeNull();
    expect((await json(api.call(key.bea!, 'GET', '/api/campaigns/del/next'))).next).toMatchObject({ answerId: q0, resumed: true });
  });
});
