import { expect, it } from 'vitest';
import { createKey } from '../../src/services/keys.ts';
import { describeDb } from '../helpers/db.ts';
import { seedCampaignWorld } from '../services/campaigns/fixture.ts';
import { useApi } from './app-fixture.ts';

// Response bodies are read as plain JSON documents (their shapes are what the assertions check).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const body = async (r: Promise<Response>): Promise<any> => (await r).json();

async function counts(database: { execute(s: string): Promise<{ rows: any[] }> }): Promise<number[]> {
  const out: number[] = [];
  for (const t of ['campaigns', 'campaign_answers', 'campaign_assignments', 'adjudications', 'labels']) out.push(Number((await database.execute(`select count(*)::int as n from ${t}`)).rows[0].n));
  return out;
}

/** The campaign routes and pages over HTTP: admins create and follow, annotate keys label and adjudicate as themselves. */
describeDb('campaign routes and pages', (ctx) => {
  const api = useApi(ctx);

  it('runs a campaign from creation to an adjudicated label in the calibration report', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'http-run', n: 1, disagree: [] });
    const key: Record<string, string> = {};
    for (const name of ['ann', 'bea', 'judy']) key[name] = (await createKey(ctx.database, { scopes: ['annotate'], name })).key;
    const spec = { name: 'http', answers: { run: 'http-run' }, scales: { verdict: true, binary: { question: 'Faithful?' } }, annotators: ['ann', 'bea'], adjudicators: ['judy'], overlap: 2 };

    // Bad input: 4xx and nothing written.
    const before = await counts(ctx.database);
    expect((await api.call(api.keys.admin, 'POST', '/api/campaigns', { body: { ...spec, overlap: 3 } })).status).toBe(400);
    expect((await api.call(api.keys.admin, 'POST', '/api/campaigns', { body: { ...spec, scales: { numeric: { k: 11, anchors: [] } } } })).status).toBe(400);
    expect((await api.call(api.keys.admin, 'POST', '/api/campaigns', { body: { ...spec, answers: { run: 'nope' } } })).status).toBe(400);
    expect((await api.call(api.keys.annotate, 'POST', '/api/campaigns', { body: spec })).status).toBe(403);
    expect(await counts(ctx.database)).toEqual(before);

    const created = await api.call(api.keys.admin, 'POST', '/api/campaigns', { body: spec });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: 'http', overlap: 2, annotators: ['ann', 'bea'], adjudicators: ['judy'], queued: { disagreement: 0, audit: 0, rest: 1 } });
    expect((await api.call(api.keys.admin, 'POST', '/api/campaigns', { body: spec })).status).toBe(409);

    for (const [name, b, pass] of [['ann', 'correct', true], ['bea', 'missing', false]] as const) {
      const next = await body(api.call(key[name]!, 'GET', '/api/campaigns/http/next'));
      expect(next.next).toMatchObject({ answerId: answerIds[0], reason: 'rest', workspace: { scales: ['verdict', 'binary'], binaryQuestion: 'Faithful?', hideReference: false } });
      const bad = await api.call(key[name]!, 'POST', '/api/campaigns/http/labels', { body: { answerId: answerIds[0], marks: [{ scale: 'numeric', label: 2 }] } });
      expect(bad.status).toBe(400);
      const saved = await api.call(key[name]!, 'POST', '/api/campaigns/http/labels', {
        body: { answerId: answerIds[0], marks: [{ scale: 'verdict', item: 'a', label: 'correct' }, { scale: 'verdict', item: 'b', label: b }, { scale: 'binary', label: pass }] },
      });
      expect(await saved.json()).toEqual({ created: 3, updated: 0, unchanged: 0, done: true });
    }
    // judy is no annotator of it: no queue for her.
    expect((await api.call(key.judy!, 'GET', '/api/campaigns/http/next')).status).toBe(403);

    const waiting = await body(api.call(api.keys.admin, 'GET', '/api/campaigns/http/disagreements?waiting=true'));
    expect(waiting.disagreements.map((d: { unit: string }) => d.unit)).toEqual(['answer:binary', 'b']);
    const page = await (await api.call(api.keys.admin, 'GET', '/campaigns/http', { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('Waiting for adjudication (2)');
    expect(page).toContain('ann says correct, bea says missing');

    const final = { answerId: answerIds[0], unit: 'b', label: 'partial', note: 'the sheep are lambs' };
    expect((await api.call(key.ann!, 'POST', '/api/campaigns/http/adjudications', { body: final })).status).toBe(403);
    const adj = await api.call(key.judy!, 'POST', '/api/campaigns/http/adjudications', { body: final });
    expect(await adj.json()).toMatchObject({ unit: 'b', label: 'partial', adjudicator: 'judy', replaced: false });
    // The page's form (admin; a bearer request needs no CSRF token).
    const form = await api.call(api.keys.admin, 'POST', '/campaigns/http/adjudicate', {
      body: new URLSearchParams({ answerId: String(answerIds[0]), unit: 'answer:binary', label: 'false' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(303);
    expect((await body(api.call(api.keys.admin, 'GET', '/api/campaigns/http/disagreements?waiting=true'))).disagreements).toEqual([]);

    const csv = await (await api.call(api.keys.admin, 'GET', '/api/campaigns/http/export', { headers: { accept: 'text/csv' } })).text();
    expect(csv.split('\r\n').filter((l) => l.includes(',adjudication,'))).toHaveLength(2);

    const cal = await (await api.call(api.keys.admin, 'GET', '/calibration?scale=verdict&humans=adjudicated', { headers: { accept: 'text/html' } })).text();
    expect(cal).toMatch(/humans: adjudicated;/);
    const json = await (await api.call(api.keys.admin, 'GET', '/calibration?scale=binary&humans=adjudicated&table=judges&format=json')).text();
    expect(json).not.toContain('"ann"');
  });
});
