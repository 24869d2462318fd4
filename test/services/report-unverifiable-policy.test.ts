import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { ablationTable, describeThenSolveReport, effortTable, leaderboard } from '../../src/services/reports.ts';
import { stopThreads } from '../../src/threads/pool.ts';
import { useApi } from '../api/app-fixture.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * Description F1 in the reports is under one unverifiable-claims policy (design §2.1), never a mean over
 * grades of both: a grade stored under `exclude` (meta.unverifiable) and one under the default were
 * averaged together, so m1's F1 mixed two definitions of correctness. A grade whose stored claims give
 * its stored correctness and F1 is rescored under the report's policy; one whose claims do not (a panel
 * grade: the mean of its samples' correctness, no claims kept) counts only under its own policy, and the
 * report says how many it left out.
 *
 * Figures by hand (f1 = 2·c·r/(c + r), r = completeness, c = correctness):
 *   a1 (m1, default): r 0.5, claims 1 true, 1 false, 2 unverifiable. count c 1/4 → f1 1/3; exclude c 1/2 → f1 1/2.
 *   a2 (m1, exclude): r 0.8, claims 3 true, 1 unverifiable.          count c 3/4 → f1 24/31; exclude c 1 → f1 8/9.
 *   b1 (m2, exclude, graded before meta.unverifiable existed: no meta): r 1, claims 2 true, 2 unverifiable.
 *                                                                       count c 1/2 → f1 2/3; exclude c 1 → f1 1.
 *   m1 pooled as stored: (1/3 + 8/9)/2 = 11/18; under count (1/3 + 24/31)/2 = 103/186; under exclude (1/2 + 8/9)/2 = 25/36.
 * Panel judge p (claims [] — not recomputable): c1 (m1) stored under count f1 0.48; c2 (m1) under exclude f1 0.9.
 */

afterAll(() => stopThreads());

const one = async (d: Database, sql: string, params: unknown[] = []): Promise<number> => Number((await d.execute(`${sql} returning id`, params)).rows[0]!.id);

const claims = (t: number, f: number, u: number) =>
  JSON.stringify([...Array(t).fill('true'), ...Array(f).fill('false'), ...Array(u).fill('unverifiable')].map((verdict, i) => ({ text: `claim ${i}`, verdict })));
const f1 = (r: number, c: number) => (r + c > 0 ? (2 * r * c) / (r + c) : 0);

async function fill(d: Database): Promise<void> {
  const rubric = await one(d, `insert into rubrics (slug, title) values ('rp', 'P')`);
  const version = await one(d, `insert into rubric_versions (rubric_id, version, title, reference, content_hash) values ($1, 1, 'P', 'p', 'rp1')`, [rubric]);
  const judge = await one(d, `insert into judges (slug, provider, model, config, config_hash) values ('jp', 'anthropic', 'claude-test', '{}', 'policy-jp')`);
  const panel = await one(d, `insert into judges (slug, provider, model, config, config_hash) values ('pp', 'panel', 'jp', '{}', 'policy-pp')`);
  const runs = {
    m1: await one(d, `insert into runs (name, model, effort) values ('run-m1', 'm1', 'low')`),
    m2: await one(d, `insert into runs (name, model, effort) values ('run-m2', 'm2', 'low')`),
  };
  const answer = (run: number, name: string) => one(d, `insert into answers (run_id, external_id, task, rubric_id, text, status) values ($1, $2, 'describe', $3, 'text', 'ok')`, [run, name, rubric]);
  const grade = (a: number, j: number, r: number, c: number, cl: string, meta: object) =>
    d.execute(
      `insert into grades (answer_id, judge_id, rubric_version_id, status, completeness, correctness, f1, items, claims, meta) values ($1, $2, $3, 'ok', $4, $5, $6, '[]', $7::jsonb, $8::jsonb)`,
      [a, j, version, r, c, f1(r, c), cl, JSON.stringify(meta)],
    );
  const a1 = await answer(runs.m1, 'a1');
  const a2 = await answer(runs.m1, 'a2');
  const b1 = await answer(runs.m2, 'b1');
  await grade(a1, judge, 0.5, 1 / 4, claims(1, 1, 2), { claimCounts: { true: 1, false: 1, unverifiable: 2, total: 4 } });
  await grade(a2, judge, 0.8, 1, claims(3, 0, 1), { claimCounts: { true: 3, false: 0, unverifiable: 1, total: 4 }, unverifiable: 'exclude' });
  await grade(b1, judge, 1, 1, claims(2, 0, 2), {});
  await grade(a1, panel, 0.4, 0.6, '[]', { panel: {} });
  await grade(a2, panel, 0.9, 0.9, '[]', { panel: {}, unverifiable: 'exclude' });
}

const cell = (rows: Array<{ model: string; sizeBucket: string; descriptions: number; f1: number | null }>, model: string) => {
  const r = rows.find((x) => x.model === model && x.sizeBucket === 'all')!;
  return [r.descriptions, r.f1];
};

describeDb('description F1 under one unverifiable-claims policy', (ctx) => {
  const api = useApi(ctx);
  beforeAll(async () => fill(ctx.database));

  it('leaderboard: the default (count) rescored from the stored claims, not the pooled 11/18; exclude on request; the cache keys on the policy', async () => {
    const count = await leaderboard(ctx.database, { judge: 'jp' });
    expect(cell(count.rows, 'm1')[0]).toBe(2);
    expect(cell(count.rows, 'm1')[1]).toBeCloseTo(103 / 186, 12);
    expect(cell(count.rows, 'm2')[1]).toBeCloseTo(2 / 3, 12);
    expect([count.unverifiable, count.unverifiableNote]).toEqual(['count', null]);
    const exclude = await leaderboard(ctx.database, { judge: 'jp', unverifiable: 'exclude' });
    expect(cell(exclude.rows, 'm1')[1]).toBeCloseTo(25 / 36, 12);
    expect(cell(exclude.rows, 'm2')[1]).toBeCloseTo(1, 12);
    expect(exclude.unverifiable).toBe('exclude');
    // Asked again on the same data version: each policy its own cached figures.
    expect(cell((await leaderboard(ctx.database, { judge: 'jp', unverifiable: 'count' })).rows, 'm1')[1]).toBeCloseTo(103 / 186, 12);
  });

  it('a grade whose claims do not give its correctness (a panel grade) counts under its own policy only, and the report says how many it left out', async () => {
    const count = await leaderboard(ctx.database, { judge: 'pp' });
    expect(cell(count.rows, 'm1')).toEqual([1, f1(0.4, 0.6)]);
    expect(count.unverifiableNote).toBe('1 grade left out: computed with unverifiable claims excluded, and its stored claims cannot rescore it under count (a panel grade keeps none)');
    const exclude = await leaderboard(ctx.database, { judge: 'pp', unverifiable: 'exclude' });
    expect(cell(exclude.rows, 'm1')).toEqual([1, f1(0.9, 0.9)]);
    expect(exclude.unverifiableNote).toBe('1 grade left out: computed with unverifiable claims counted, and its stored claims cannot rescore it under exclude (a panel grade keeps none)');
  });

  it('effort and ablation F1 follow the same policy', async () => {
    const effort = await effortTable(ctx.database, { judge: 'jp', unverifiable: 'exclude' });
    expect(effort.rows.find((r) => r.model === 'm1')!.f1).toBeCloseTo(25 / 36, 12);
    expect(effort.unverifiable).toBe('exclude');
    const ablation = await ablationTable(ctx.database, { judge: 'jp' });
    expect(ablation.rows.find((r) => r.model === 'm1' && r.condition === 'plain')!.f1).toBeCloseTo(103 / 186, 12);
  });

  it('describe-then-solve says its policy and how many grades it left out, as the leaderboard does (API too)', async () => {
    const count = await describeThenSolveReport(ctx.database, { judge: 'pp' });
    expect([count.unverifiable, count.unverifiableNote]).toEqual(['count', '1 grade left out: computed with unverifiable claims excluded, and its stored claims cannot rescore it under count (a panel grade keeps none)']);
    const exclude = await describeThenSolveReport(ctx.database, { judge: 'jp', unverifiable: 'exclude' });
    expect([exclude.unverifiable, exclude.unverifiableNote]).toEqual(['exclude', null]);
    const res = await api.call(api.keys.read, 'GET', '/api/reports/describe-then-solve?judge=pp&unverifiable=exclude');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      unverifiable: 'exclude',
      unverifiableNote: '1 grade left out: computed with unverifiable claims counted, and its stored claims cannot rescore it under exclude (a panel grade keeps none)',
    });
  });

  it('GET /api/reports/leaderboard?unverifiable=exclude; an unknown policy is 400 with the envelope', async () => {
    const res = await api.call(api.keys.read, 'GET', '/api/reports/leaderboard?judge=jp&unverifiable=exclude');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { unverifiable: string; rows: Array<{ model: string; sizeBucket: string; descriptions: number; f1: number | null }> };
    expect(body.unverifiable).toBe('exclude');
    expect(cell(body.rows, 'm1')[1]).toBeCloseTo(25 / 36, 12);
    const bad = await api.call(api.keys.read, 'GET', '/api/reports/leaderboard?unverifiable=drop');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'bad_input', message: expect.stringContaining('unverifiable') });
  });
});
