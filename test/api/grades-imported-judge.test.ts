import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { importForeignAnswers } from '../../src/services/import-foreign.ts';
import { importRubrics } from '../../src/services/rubrics.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * GET /api/grades?judge= takes every judge id a stored grade has, also an imported tool's `<tool>:<scorer>`
 * (docs/formats.md): the list shows `judge.id` 'inspect:model_graded_qa', and before, filtering by it was
 * refused as a malformed judge id (400, "judge ids are letters, digits, . _ -"), so those grades could not
 * be listed apart. An id that names nothing is 404 as for any judge.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describeDb('GET /api/grades?judge= of an imported tool', (ctx) => {
  const api = useApi(ctx);
  const get = async (path: string): Promise<{ status: number; body: Json }> => {
    const res = await api.call(api.keys.read, 'GET', path);
    return { status: res.status, body: (await res.json()) as Json };
  };
  beforeAll(async () => {
    await importRubrics(ctx.database, [{ path: 'rubrics/farmyard.yaml', content: readFileSync('rubrics/farmyard.yaml', 'utf8') }]);
    const file = 'test/fixtures/import-formats/inspect-log.json';
    await importForeignAnswers(ctx.database, { path: file, content: readFileSync(file, 'utf8') }, 'inspect', { task: 'describe', rubric: 'farmyard-54', run: 'inspect-run' });
  }, 120_000);

  it("lists the grades of judge 'inspect:model_graded_qa', and 404s a tool's scorer no grade has", async () => {
    const stored = (await ctx.database.execute(`select g.id from grades g join judges j on j.id = g.judge_id where j.slug = 'inspect:model_graded_qa' order by g.id desc`)).rows.map((r) => Number(r.id));
    expect(stored.length).toBe(3);
    const all = await get('/api/grades?limit=1000');
    expect(all.body.items.filter((g: Json) => g.judge.id === 'inspect:model_graded_qa').map((g: Json) => g.gradeId)).toEqual(stored);
    const listed = await get(`/api/grades?judge=${encodeURIComponent('inspect:model_graded_qa')}`);
    expect([listed.status, listed.body.total, listed.body.items?.map((g: Json) => g.gradeId)]).toEqual([200, 3, stored]);
    const walked = await get(`/api/grades?judge=${encodeURIComponent('inspect:model_graded_qa')}&limit=2`);
    const rest = await get(`/api/grades?judge=${encodeURIComponent('inspect:model_graded_qa')}&limit=2&cursor=${walked.body.nextCursor}`);
    expect([...walked.body.items, ...rest.body.items].map((g: Json) => g.gradeId)).toEqual(stored);
    const unknown = await get(`/api/grades?judge=${encodeURIComponent('inspect:no_such_scorer')}`);
    expect([unknown.status, unknown.body.error]).toEqual([404, { code: 'not_found', message: expect.stringMatching(/^judge 'inspect:no_such_scorer' not found/) }]);
  });
});
