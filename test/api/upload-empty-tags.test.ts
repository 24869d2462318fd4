import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import { allCounts, lines, NDJSON } from './write-readback-fixture.ts';

/**
 * POST /api/answers?tags= (empty) read as no ?tags at all: the rows went (200) into run 'tg', tagged
 * [tagged], though the request said no tags, while ?tags=, (also no tag) is refused against that run and
 * every other empty default (?run=, ?model=, ?effort=) is refused as empty. Now ?tags= is refused too.
 */

const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Record<string, unknown>;

describeDb('answer upload: ?tags= given empty', (ctx) => {
  const api = useApi(ctx);
  const upload = (query: string, id: string) =>
    api.call(api.keys.write, 'POST', `/api/answers?${query}`, { body: lines({ id, task: 'describe', rubric: 'farmyard-54', text: 'A barn.' }), headers: { 'content-type': NDJSON } });
  beforeAll(async () => {
    expect((await api.call(api.keys.admin, 'POST', '/api/rubrics', { body: rubric })).status).toBe(200);
    expect((await upload('run=tg&model=m&tags=tagged', 'd0')).status).toBe(200);
  });

  it('is refused with nothing written; tags given are checked against the run', async () => {
    const before = await allCounts(ctx.database);
    const res = await upload('run=tg&model=m&tags=', 'd1');
    expect([res.status, await res.json()]).toEqual([400, { error: { code: 'bad_input', message: 'query.tags: must not be empty' } }]);
    expect(await allCounts(ctx.database)).toEqual(before);
    expect((await upload('run=tg&model=m&tags=tagged', 'd1')).status).toBe(200);
    expect((await upload('run=tg&model=m&tags=plain', 'd2')).status).toBe(400);
  });
});
