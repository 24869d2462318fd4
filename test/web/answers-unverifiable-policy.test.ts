import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import type { Database } from '../../src/db/client.ts';
import { leaderboard } from '../../src/services/reports.ts';
import { listAnswerRows } from '../../src/services/web-answer.ts';
import { stopThreads } from '../../src/threads/pool.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * The /answers F1 column showed each grade's stored F1, of the policy it was graded with, while the
 * leaderboard reads every grade under one policy (report-policy.ts, default count): a2, graded under
 * exclude, showed 8/9 beside a leaderboard that counts it as 24/31 (docs/web-pages.md says they agree).
 * Figures by hand (f1 = 2·c·r/(c + r)):
 *   a1 (default): r 0.5, claims 1 true, 1 false, 2 unverifiable. count c 1/4 → 1/3; exclude c 1/2 → 1/2.
 *   a2 (exclude): r 0.8, claims 3 true, 1 unverifiable.          count c 3/4 → 24/31; exclude c 1 → 8/9.
 * Panel judge pp (no claims): a1 stored under count 0.48, a2 under exclude 0.9; each shown only under its own policy.
 */

afterAll(() => stopThreads());

const one = async (d: Database, sql: string, params: unknown[] = []): Promise<number> => Number((await d.execute(`${sql} returning id`, params)).rows[0]!.id);
const claims = (t: number, f: number, u: number) =>
  JSON.stringify([...Array(t).fill('true'), ...Array(f).fill('false'), ...Array(u).fill('unverifiable')].map((verdict, i) => ({ text: `claim ${i}`, verdict })));
const f1 = (r: number, c: number) => (r + c > 0 ? (2 * r * c) / (r + c) : 0);

async function fill(d: Database): Promise<void> {
  const rubric = await one(d, `insert into rubrics (slug, title) values ('rq', 'Q')`);
  const version = await one(d, `insert into rubric_versions (rubric_id, version, title, reference, content_hash) values ($1, 1, 'Q', 'q', 'rq1')`, [rubric]);
  const judge = await one(d, `insert into judges (slug, provider, model, config, config_hash) values ('jq', 'anthropic', 'claude-test', '{}', 'answers-jq')`);
  const panel = await one(d, `insert into judges (slug, provider, model, config, config_hash) values ('pq', 'panel', 'jq', '{}', 'answers-pq')`);
  const run = await one(d, `insert into runs (name, model, effort) values ('run-q', 'mq', 'low')`);
  const answer = (name: string) => one(d, `insert into answers (run_id, external_id, task, rubric_id, text, status) values ($1, $2, 'describe', $3, 'text', 'ok')`, [run, name, rubric]);
  const grade = (a: number, j: number, r: number, c: number, cl: string, meta: object) =>
    d.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, completeness, correctness, f1, items, claims, meta) values ($1, $2, $3, 'ok', $4, $5, $6, '[]', $7::jsonb, $8::jsonb)`,
      [a, j, version, r, c, f1(r, c), cl, JSON.stringify(meta)],
    );
  const a1 = await answer('a1');
  const a2 = await answer('a2');
  await grade(a1, judge, 0.5, 1 / 4, claims(1, 1, 2), {});
  await grade(a2, judge, 0.8, 1, claims(3, 0, 1), { unverifiable: 'exclude' });
  await grade(a1, panel, 0.4, 0.6, '[]', { panel: {} });
  await grade(a2, panel, 0.9, 0.9, '[]', { panel: {}, unverifiable: 'exclude' });
}

const f1s = async (d: Database, o: { judge?: string; unverifiable?: 'count' | 'exclude' }) => {
  const list = await listAnswerRows(d, { run: 'run-q', limit: 10, offset: 0, ...o });
  return { list, f1: list.rows.map((r) => [r.answer, r.f1]) };
};

describeDb('answers page: F1 under the reports\' unverifiable-claims policy', (ctx) => {
  beforeAll(async () => fill(ctx.database));

  it('the default reads every grade under count, as the leaderboard does; exclude on request', async () => {
    const count = await f1s(ctx.database, { judge: 'jq' });
    expect(count.f1.map(([a]) => a)).toEqual(['a1', 'a2']);
    expect(count.f1[0]![1]).toBeCloseTo(1 / 3, 12);
    expect(count.f1[1]![1]).toBeCloseTo(24 / 31, 12);
    expect([count.list.unverifiable, count.list.unverifiableNote]).toEqual(['count', null]);
    // The mean of the column is the leaderboard's cell.
    const board = (await leaderboard(ctx.database, { run: 'run-q', judge: 'jq' })).rows.find((r) => r.sizeBucket === 'all' && !r.baseline)!;
    expect(board.f1).toBeCloseTo(((count.f1[0]![1] as number) + (count.f1[1]![1] as number)) / 2, 12);
    const exclude = await f1s(ctx.database, { judge: 'jq', unverifiable: 'exclude' });
    expect(exclude.f1[0]![1]).toBeCloseTo(1 / 2, 12);
    expect(exclude.f1[1]![1]).toBeCloseTo(8 / 9, 12);
  });

  it('a panel grade shows only under its own policy, and the list says how many it left out', async () => {
    const count = await f1s(ctx.database, { judge: 'pq' });
    expect(count.f1).toEqual([['a1', f1(0.4, 0.6)], ['a2', null]]);
    expect(count.list.unverifiableNote).toBe('1 grade left out: computed with unverifiable claims excluded, and its stored claims cannot rescore it under count (a panel grade keeps none)');
    const exclude = await f1s(ctx.database, { judge: 'pq', unverifiable: 'exclude' });
    expect(exclude.f1).toEqual([['a1', null], ['a2', f1(0.9, 0.9)]]);
  });

  it('the page takes ?unverifiable= (other values 400) and shows the policy line; its download the same F1', async () => {
    const a = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    const json = await a.request('http://127.0.0.1/answers?run=run-q&judge=jq&unverifiable=exclude&table=answers&format=json');
    expect(json.status).toBe(200);
    const rows = ((await json.json()) as { rows: Array<{ answer: string; f1: number }> }).rows;
    expect(rows[1]!.f1).toBeCloseTo(8 / 9, 12);
    const html = await (await a.request('http://127.0.0.1/answers?run=run-q&judge=pq', { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('unverifiable claims <strong>counted in</strong> correctness');
    expect(html).toContain('1 grade left out');
    const bad = await a.request('http://127.0.0.1/answers?unverifiable=drop');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { code: 'bad_input', message: "unverifiable: must be one of count, exclude, got 'drop'" } });
  });
});
