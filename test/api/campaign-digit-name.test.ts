import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createKey } from '../../src/services/keys.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import { allCounts, lines, NDJSON } from './write-readback-fixture.ts';

/**
 * A campaign is referenced by id or by name through one path segment (/api/campaigns/{ref}, `assay
 * campaign adjudicate REF`, the pages' /campaigns/{name} links), and digits are read as the id. A campaign
 * named '1' was created (201) and could never be reached by its name: labels an annotator sent to
 * /api/campaigns/1/labels were saved (200) into campaign id 1, another campaign. Such a name is refused.
 */

const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Record<string, unknown>;
const spec = (name: string) => ({
  name,
  answers: { run: 'rd', task: 'describe' },
  scales: { binary: { question: 'Accept?' } },
  annotators: ['ann'],
  overlap: 1,
  order: { disagreementFirst: false, auditShare: 0, seed: 1 },
});

describeDb('campaign names that read as ids', (ctx) => {
  const api = useApi(ctx);
  let ann = '';
  beforeAll(async () => {
    ann = (await createKey(ctx.database, { scopes: ['annotate'], name: 'ann' })).key;
    expect((await api.call(api.keys.admin, 'POST', '/api/rubrics', { body: rubric })).status).toBe(200);
    const rows = ['A barn.', 'Pigs.'].map((text, i) => ({ id: `d${i + 1}`, run: 'rd', model: 'm', task: 'describe', rubric: 'farmyard-54', text }));
    expect((await api.call(api.keys.admin, 'POST', '/api/answers', { body: lines(...rows), headers: { 'content-type': NDJSON } })).status).toBe(200);
  });

  it("a name of digits only is refused with nothing written; the campaign it would shadow keeps its labels' ref", async () => {
    const first = await api.call(api.keys.admin, 'POST', '/api/campaigns', { body: spec('first') });
    expect(first.status).toBe(201);
    const id = ((await first.json()) as { id: number }).id;
    for (const name of [String(id), '0042']) {
      const before = await allCounts(ctx.database);
      const res = await api.call(api.keys.admin, 'POST', '/api/campaigns', { body: spec(name) });
      expect(res.status, name).toBe(400);
      const err = ((await res.json()) as { error: { code: string; message: string } }).error;
      expect(err.code).toBe('bad_input');
      expect(err.message).toBe(`body: name: '${name}' is digits only, which a campaign reference reads as an id; give the name a letter or another sign`);
      expect(await allCounts(ctx.database)).toEqual(before);
    }
    // A name with a digit and something else is a name: reached by it, its labels are its own.
    const second = await api.call(api.keys.admin, 'POST', '/api/campaigns', { body: spec(`${id}b`) });
    expect(second.status).toBe(201);
    const secondId = ((await second.json()) as { id: number }).id;
    const next = (await (await api.call(ann, 'GET', `/api/campaigns/${id}b/next`)).json()) as { next: { answerId: number } };
    const saved = await api.call(ann, 'POST', `/api/campaigns/${id}b/labels`, { body: { answerId: next.next.answerId, marks: [{ scale: 'binary', label: true }] } });
    expect(saved.status).toBe(200);
    const stored = await ctx.database.execute(`select campaign_id from labels where annotator = 'ann'`);
    expect(stored.rows.map((r) => Number(r.campaign_id))).toEqual([secondId]);
  });
});
