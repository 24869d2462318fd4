import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Rubric } from '../../src/domain/rubric.ts';
import { gradesOfAnswer } from '../../src/services/grading/grade-detail.ts';
import { encodeGradeCursor } from '../../src/services/grading/grade-list.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { ROOT } from '../helpers/cli.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * GET /api/grades and /api/grades/{id} over the seeded examples: counts per run, model, judge and status
 * against the database's own count, a cursor walk that yields every grade exactly once (also while
 * grades are written mid-walk), earlier grade versions listed beside the newest, the one grade shape of
 * the answer page, and bad parameters refused with the envelope.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describeDb('GET /api/grades', (ctx) => {
  const api = useApi(ctx);
  const get = async (path: string, status = 200): Promise<Json> => {
    const res = await api.call(api.keys.read, 'GET', path);
    const body = (await res.json()) as Json;
    expect(res.status, `${path}: ${JSON.stringify(body).slice(0, 200)}`).toBe(status);
    return body;
  };
  const dbCount = async (where: string, params: unknown[] = []): Promise<number> =>
    Number(
      (await ctx.database.execute(`select count(*)::int as n from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id join runs r on r.id = a.run_id where ${where}`, params)).rows[0]!.n,
    );
  /** Every grade of a filtered list, page by page; the ids in the order served. */
  const walk = async (query: string, limit: number, start: string | null = null): Promise<number[]> => {
    const ids: number[] = [];
    let cursor: string | null = start;
    do {
      const page: Json = await get(`/api/grades?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.items.length).toBeLessThanOrEqual(limit);
      ids.push(...page.items.map((g: Json) => g.gradeId));
      cursor = page.nextCursor;
    } while (cursor);
    return ids;
  };

  beforeAll(async () => {
    await seedExamples(ctx.database);
  }, 180_000);

  it('counts what the database holds per run, model, judge and status, and lists every grade of a run', async () => {
    const runs = (await ctx.database.execute('select name from runs order by name')).rows.map((r) => String(r.name));
    expect(runs.length).toBe(10);
    for (const run of runs) {
      const n = await dbCount('r.name = $1', [run]);
      const page = await get(`/api/grades?run=${encodeURIComponent(run)}&limit=1000`);
      expect([run, page.total, page.items.length]).toEqual([run, n, n]);
      expect(page.nextCursor).toBeNull();
    }
    const total = await dbCount('true');
    expect(total).toBe(128);
    expect((await get('/api/grades')).total).toBe(total);
    expect((await get('/api/grades?model=model-a')).total).toBe(await dbCount(`r.model = 'model-a'`));
    expect((await get('/api/grades?model=model-a')).total).toBe(8);
    expect((await get('/api/grades?judge=panel-lexical')).total).toBe(7);
    expect((await get('/api/grades?judge=panel-lexical&run=IIW-P5B')).total).toBe(0);
    // A judge id that names no judge is 404, not an empty list a typo would pass for (a known judge with
    // no grades of the run, above, stays an empty list).
    expect((await get('/api/grades?judge=no-such-judge', 404)).error.code).toBe('not_found');
    // A run by its id lists the same grades as by its name.
    const id = Number((await ctx.database.execute(`select id from runs where name = 'farmyard-describe'`)).rows[0]!.id);
    expect((await get(`/api/grades?run=${id}&limit=1000`)).items).toEqual((await get('/api/grades?run=farmyard-describe&limit=1000')).items);
  });

  it('walks every grade exactly once, newest id first, with the cursor — also while grades are written', async () => {
    const all = await walk('', 7);
    const expected = (await ctx.database.execute('select id from grades order by id desc')).rows.map((r) => Number(r.id));
    expect(all).toEqual(expected);
    expect(await walk('judge=lexical', 1000)).toEqual(
      (await ctx.database.execute(`select g.id from grades g join judges j on j.id = g.judge_id where j.slug = 'lexical' order by g.id desc`)).rows.map((r) => Number(r.id)),
    );

    // Two pages in, a new grade is written: the walk goes on over the grades it had not reached, none twice.
    const first = await get('/api/grades?limit=10');
    const second = await get(`/api/grades?limit=10&cursor=${first.nextCursor}`);
    const up = await api.call(api.keys.write, 'POST', '/api/grades', { body: { answer: 'A red barn and a green tractor.', run: 'walk-run', model: 'model-w', rubric: 'farmyard-54', judge: 'lexical' } });
    expect(up.status).toBe(200);
    const fresh = ((await up.json()) as Json).gradeId as number;
    expect(fresh).toBeGreaterThan(expected[0]!);
    const rest = await walk('', 25, second.nextCursor);
    const served = [...first.items, ...second.items].map((g: Json) => g.gradeId).concat(rest);
    expect(served).toEqual(expected);
    expect((await get('/api/grades?limit=1')).items[0].gradeId).toBe(fresh);
  });

  it('lists every stored version of a grade; GET /api/grades/{id} is the grade the answer page shows', async () => {
    const answerId = Number((await ctx.database.execute(`select a.id from answers a join runs r on r.id = a.run_id where r.name = 'farmyard-describe' order by a.id limit 1`)).rows[0]!.id);
    const before = await get(`/api/grades?answer=${answerId}&judge=lexical`);
    expect(before.items.map((g: Json) => g.rubric)).toEqual([{ id: 'farmyard-54', version: 1 }]);
    // An edited rubric is version 2; grading against it adds a grade beside the version-1 one.
    const farmyard = parseYaml(readFileSync(`${ROOT}rubrics/farmyard.yaml`, 'utf8')) as Rubric;
    expect((await importParsedRubrics(ctx.database, [{ ...farmyard, title: 'Farmyard (edited)' }])).versioned).toBe(1);
    const regrade = await api.call(api.keys.write, 'POST', '/api/grades', { body: { answerId, judge: 'lexical', rubric: 'farmyard-54', rubricVersion: 2 } });
    expect(regrade.status).toBe(200);
    const v2 = (await regrade.json()) as Json;
    const after = await get(`/api/grades?answer=${answerId}&judge=lexical`);
    expect(after.total).toBe(2);
    expect(after.items.map((g: Json) => [g.gradeId, g.rubric.version])).toEqual([
      [v2.gradeId, 2],
      [before.items[0].gradeId, 1],
    ]);
    expect(after.items[0]).toEqual(v2);

    // The one grade shape: what POST returned, the list and /answers/:id's read agree field by field.
    const home = await gradesOfAnswer(ctx.database, answerId);
    for (const g of after.items) {
      expect(await get(`/api/grades/${g.gradeId}`)).toEqual(g);
      expect(home.find((h) => h.grade.gradeId === g.gradeId)?.grade).toEqual(g);
    }
    const panel = (await get('/api/grades?judge=panel-lexical&limit=1')).items[0];
    expect(panel.panel).toMatchObject({ vote: expect.any(String), members: expect.any(Array) });
    expect(await get(`/api/grades/${panel.gradeId}`)).toEqual(panel);
  });

  it('filters by status', async () => {
    const ok = await get('/api/grades?status=ok');
    expect(ok.total).toBe(await dbCount(`g.status = 'ok'`));
    expect((await get('/api/grades?status=parse_failure')).total).toBe(0);
    const [row] = (await ctx.database.execute(`update grades set status = 'parse_failure', f1 = null, completeness = null, correctness = null where id = (select min(id) from grades) returning id`)).rows;
    const failed = await get('/api/grades?status=parse_failure');
    expect(failed.items.map((g: Json) => [g.gradeId, g.status, g.f1])).toEqual([[Number(row!.id), 'parse_failure', null]]);
    expect((await get('/api/grades?status=ok')).total).toBe(ok.total - 1);
  });

  it('answers CSV with the totals and the next cursor in headers', async () => {
    const res = await api.call(api.keys.read, 'GET', '/api/grades?run=farmyard-describe&limit=5', { headers: { accept: 'text/csv' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const json = await get('/api/grades?run=farmyard-describe&limit=5');
    expect(res.headers.get('x-total-count')).toBe(String(json.total));
    expect(res.headers.get('x-next-cursor')).toBe(json.nextCursor);
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]!.split(',').slice(0, 3)).toEqual(['gradeId', 'answerId', 'status']);
    expect(lines.length).toBe(1 + 5);
  });

  it('refuses bad parameters with the envelope (400; an unknown run or grade 404) and writes nothing', async () => {
    const before = await rowCounts(ctx.database);
    const cursorOf = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    for (const q of ['limit=0', 'limit=1001', 'limit=ten', 'status=bogus', 'cursor=!!!', `cursor=${cursorOf('x1:5')}`, `cursor=${cursorOf('g1:abc')}`, `cursor=${cursorOf('g1:0')}`, `cursor=${encodeGradeCursor(5)}%3D%3D`, 'answer=0', 'answer=abc', `cursor=${'A'.repeat(101)}`]) {
      const body = await get(`/api/grades?${q}`, 400);
      expect(body.error.code, q).toBe('bad_input');
    }
    expect((await get('/api/grades?run=no-such-run', 404)).error).toEqual({ code: 'not_found', message: "run 'no-such-run' not found" });
    // A judge id is any stored one (an imported tool's is `<tool>:<scorer>`): one that names nothing is 404, not malformed.
    expect((await get('/api/grades?judge=a%20b', 404)).error.code).toBe('not_found');
    for (const id of ['0', 'abc', '99999999999']) expect((await get(`/api/grades/${id}`, 400)).error.code).toBe('bad_input');
    expect((await get('/api/grades/2000000000', 404)).error).toEqual({ code: 'not_found', message: 'grade 2000000000 not found' });
    expect((await api.call(null, 'GET', '/api/grades')).status).toBe(401);
    expect(await rowCounts(ctx.database)).toEqual(before);
  });
});
