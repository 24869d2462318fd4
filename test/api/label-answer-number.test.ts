import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import { allCounts, lines, NDJSON } from './write-readback-fixture.ts';

/**
 * A label row's "answer" may be written as a number; JSON.parse rounds one past 2^53 − 1 to a neighbour
 * (9007199254740993 reads as 9007199254740992), so the label was stored (200) on answer …992, which the
 * row never named. Answer uploads refuse such an id; a label row now does too, naming the number.
 */

const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Record<string, unknown>;

describeDb('label rows naming an answer by a number', (ctx) => {
  const api = useApi(ctx);
  beforeAll(async () => {
    expect((await api.call(api.keys.admin, 'POST', '/api/rubrics', { body: rubric })).status).toBe(200);
    const rows = ['9007199254740992', '9007199254740993', '12'].map((id) => ({ id, run: 'rn', model: 'm', task: 'describe', rubric: 'farmyard-54', text: `Answer ${id}.` }));
    expect((await api.call(api.keys.admin, 'POST', '/api/answers', { body: lines(...rows), headers: { 'content-type': NDJSON } })).status).toBe(200);
  });

  it('one past 2^53 − 1 is refused with nothing written; a safe one names its answer', async () => {
    const before = await allCounts(ctx.database);
    const res = await api.call(api.keys.write, 'POST', '/api/labels', {
      body: '{"answer": 9007199254740993, "run": "rn", "item": "barn", "rater": "h", "label": "correct"}',
      headers: { 'content-type': NDJSON },
    });
    const body = (await res.json()) as { error?: { code: string; message: string } };
    expect([res.status, body.error?.code]).toEqual([400, 'bad_input']);
    expect(body.error!.message).toBe('body:1: answer: a number beyond 9007199254740991, which a JSON number does not hold exactly (it reads as another); write the answer id as a string');
    expect(await allCounts(ctx.database)).toEqual(before);
    const ok = await api.call(api.keys.write, 'POST', '/api/labels', { body: '{"answer": 12, "run": "rn", "item": "barn", "rater": "h", "label": "correct"}', headers: { 'content-type': NDJSON } });
    expect(ok.status).toBe(200);
    const stored = await ctx.database.execute(`select a.external_id from labels l join answers a on a.id = l.answer_id`);
    expect(stored.rows.map((r) => r.external_id)).toEqual(['12']);
  });
});
