import { beforeAll, expect, it } from 'vitest';
import { createKey } from '../../src/services/keys.ts';
import { describeDb } from '../helpers/db.ts';
import { seedCampaignWorld } from '../services/campaigns/fixture.ts';
import { useApi } from './app-fixture.ts';

/**
 * The campaign page's adjudication form (POST /campaigns/:ref/adjudicate) reads its fields strictly, as
 * the annotation form does: before, a field given twice kept its last value (label=partial&label=correct
 * recorded 'correct' with a 303) and an unknown field (a misspelt note, an adjudicator naming someone
 * else) was dropped without a word. Now either is a 400 with nothing written.
 */

type ErrorBody = { error: { code: string; message: string } };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describeDb('the adjudication form', (ctx) => {
  const api = useApi(ctx);
  let answerId = 0;
  const adjudications = async () => (await ctx.database.execute('select item_key, label, adjudicator, note from adjudications order by item_key')).rows;

  beforeAll(async () => {
    answerId = (await seedCampaignWorld(ctx.database, { run: 'adj-run', n: 1, disagree: [] })).answerIds[0]!;
    const key: Record<string, string> = {};
    for (const name of ['ann', 'bea']) key[name] = (await createKey(ctx.database, { scopes: ['annotate'], name })).key;
    const spec = { name: 'adj', answers: { run: 'adj-run' }, scales: { verdict: true }, annotators: ['ann', 'bea'], overlap: 2 };
    expect((await api.call(api.keys.admin, 'POST', '/api/campaigns', { body: spec })).status).toBe(201);
    for (const [name, b] of [['ann', 'correct'], ['bea', 'missing']] as const) {
      const saved = await api.call(key[name]!, 'POST', '/api/campaigns/adj/labels', { body: { answerId, marks: [{ scale: 'verdict', item: 'a', label: 'correct' }, { scale: 'verdict', item: 'b', label: b }] } });
      expect(saved.status).toBe(200);
    }
  });

  it.each([
    ['a field given twice', `unit=b&label=partial&label=correct`, /^form: label: given twice \('partial' and 'correct'\); nothing saved$/],
    ['an unknown field', `unit=b&label=partial&adjudicator=someone`, /^form: adjudicator: unknown field \(expected answerId, unit, label, note\); nothing saved$/],
  ])('%s is a 400 and records nothing', async (_what, fields, message) => {
    const res = await api.call(api.keys.admin, 'POST', '/campaigns/adj/adjudicate', { body: `answerId=${answerId}&${fields}`, headers: FORM });
    expect(res.status).toBe(400);
    const e = ((await res.json()) as ErrorBody).error;
    expect(e.code).toBe('bad_input');
    expect(e.message).toMatch(message);
    expect(await adjudications()).toEqual([]);
  });

  it('the form as the page sends it records the final label', async () => {
    const res = await api.call(api.keys.admin, 'POST', '/campaigns/adj/adjudicate', { body: `_csrf=x&answerId=${answerId}&unit=b&label=partial&note=lambs`, headers: FORM });
    expect(res.status).toBe(303);
    expect(await adjudications()).toEqual([{ item_key: 'b', label: 'partial', adjudicator: 'test admin', note: 'lambs' }]);
  });
});
