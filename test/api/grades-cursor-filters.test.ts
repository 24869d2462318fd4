import { beforeAll, expect, it } from 'vitest';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * A GET /api/grades cursor holds the filters of the walk it was given in: passed back with other filters
 * it is refused (400), never read as a grade id of the other list. Before, the cursor encoded only the
 * last grade id, so the next page of judge=B after a judge=A cursor was B's grades below A's id — 200,
 * B's newer grades silently skipped, `total` still counting them. The same filters (the run by name or by
 * id, another limit) go on.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describeDb('GET /api/grades cursor and filters', (ctx) => {
  const api = useApi(ctx);
  const get = async (path: string, status = 200): Promise<Json> => {
    const res = await api.call(api.keys.read, 'GET', path);
    const body = (await res.json()) as Json;
    expect(res.status, `${path}: ${JSON.stringify(body).slice(0, 200)}`).toBe(status);
    return body;
  };
  const ids = async (where: string): Promise<number[]> =>
    (await ctx.database.execute(`select g.id from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id join runs r on r.id = a.run_id where ${where} order by g.id desc`)).rows.map((r) => Number(r.id));

  beforeAll(async () => {
    await seedExamples(ctx.database);
  }, 180_000);

  it('refuses a cursor of one filter passed with another, writing nothing; the same filters go on', async () => {
    // Two judges whose grades interleave: A's first cursor lies below some of B's grades, so reused there it would skip them.
    const slugs = (await ctx.database.execute(`select distinct slug from judges order by slug`)).rows.map((r) => String(r.slug));
    const lists = new Map(await Promise.all(slugs.map(async (s) => [s, await ids(`j.slug = '${s}'`)] as const)));
    const pair = slugs.flatMap((a) => slugs.map((b) => [a, b] as const)).find(([a, b]) => a !== b && lists.get(a)!.length > 1 && lists.get(b)!.some((id) => id > lists.get(a)![0]!) && lists.get(b)!.some((id) => id < lists.get(a)![0]!));
    expect(pair).toBeDefined();
    const [a, b] = pair!;
    const first = await get(`/api/grades?judge=${a}&limit=1`);
    expect(first.items[0].gradeId).toBe(lists.get(a)![0]);
    const before = await rowCounts(ctx.database);
    for (const other of [`judge=${b}`, '', `judge=${a}&status=ok`, `judge=${a}&run=farmyard-describe`, `judge=${a}&model=example`]) {
      const body = await get(`/api/grades?${other}&limit=1000&cursor=${first.nextCursor}`, 400);
      expect(body.error, other).toEqual({ code: 'bad_input', message: expect.stringMatching(/^cursor: .*other filters/) });
    }
    expect(await rowCounts(ctx.database)).toEqual(before);
    // The same filters, another limit: the rest of A's grades.
    const rest = await get(`/api/grades?judge=${a}&limit=1000&cursor=${first.nextCursor}`);
    expect([first.items[0].gradeId, ...rest.items.map((g: Json) => g.gradeId)]).toEqual(lists.get(a));

    // A run named by name or by id is the same filter.
    const run = (await ctx.database.execute(`select id from runs where name = 'farmyard-describe'`)).rows[0]!.id;
    const byName = await get('/api/grades?run=farmyard-describe&limit=1');
    const byId = await get(`/api/grades?run=${run}&limit=1000&cursor=${byName.nextCursor}`);
    expect([byName.items[0].gradeId, ...byId.items.map((g: Json) => g.gradeId)]).toEqual(await ids(`r.name = 'farmyard-describe'`));
  });
});
