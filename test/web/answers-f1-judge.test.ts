import { beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { leaderboard } from '../../src/services/reports.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { listAnswerRows } from '../../src/services/web-answer.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * The /answers page's F1 is the grade of the reports' judge (the leaderboard's: the busiest, or ?judge=).
 * It was the newest ok grade of any judge: the bundled farmyard answer, graded by lexical (0.7543),
 * lexical-strict, lexical-lenient and last by panel-lexical (0.7390), showed 0.7390 under a page that names
 * the lexical judge, while the leaderboard gave that answer's model 0.7543 — whichever judge graded last
 * set the column, HTTP 200.
 */

const app = (database: Parameters<typeof createApp>[0]['database']) => createApp({ database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });

describeDb('answers page: F1 of the report judge', (ctx) => {
  beforeAll(async () => {
    await seedExamples(ctx.database);
  }, 120_000);

  const boardF1 = async (judge?: string) =>
    (await leaderboard(ctx.database, { run: 'farmyard-describe', ...(judge ? { judge } : {}) }, { seed: 1 })).rows.find((r) => r.sizeBucket === 'all' && !r.baseline)!.f1;

  it('is the leaderboard judge by default, the named one with judge', async () => {
    expect(await boardF1()).toBe(0.7542533081285444);
    const list = await listAnswerRows(ctx.database, { run: 'farmyard-describe', limit: 10, offset: 0 });
    expect(list.judge).toBe('lexical');
    expect(list.rows.map((r) => [r.answer, r.grades, r.f1])).toEqual([['farmyard-describe', 4, 0.7542533081285444]]);
    expect(await boardF1('lexical-lenient')).toBe(0.8370883882149046);
    const lenient = await listAnswerRows(ctx.database, { run: 'farmyard-describe', judge: 'lexical-lenient', limit: 10, offset: 0 });
    expect([lenient.judge, lenient.rows[0]!.f1]).toEqual(['lexical-lenient', 0.8370883882149046]);
  });

  it('the page and its download say the judge; an unknown judge is a 404 envelope', async () => {
    const a = app(ctx.database);
    const json = await a.request('http://127.0.0.1/answers?run=farmyard-describe&table=answers&format=json');
    expect(json.status).toBe(200);
    const body = (await json.json()) as { caption: string; rows: Array<{ answer: string; f1: number | null }> };
    expect(body.rows.map((r) => [r.answer, r.f1])).toEqual([['farmyard-describe', 0.7542533081285444]]);
    expect(body.caption).toBe('Answers (all 1; F1 by judge lexical)');
    const panel = await a.request('http://127.0.0.1/answers?run=farmyard-describe&judge=panel-lexical&table=answers&format=csv');
    expect((await panel.text()).split('\r\n')[1]).toMatch(/^farmyard-describe,farmyard-describe,example,describe,ok,4,0\.7389635316698656,/);
    const html = await (await a.request('http://127.0.0.1/answers?run=farmyard-describe', { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('F1 by judge lexical');
    const unknown = await a.request('http://127.0.0.1/answers?judge=no-such-judge');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: 'not_found', message: "judge 'no-such-judge' not found" } });
  });
});
