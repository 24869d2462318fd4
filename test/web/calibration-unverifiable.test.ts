import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { stopThreads } from '../../src/threads/pool.ts';
import { describeDb } from '../helpers/db.ts';
import { seedPolicyCalibration } from '../services/calibration-policy-fixture.ts';

/**
 * The /calibration page reads the judges' F1 on the numeric scale under the reports' one
 * unverifiable-claims policy, ?unverifiable=count|exclude (default count), as GET /api/reports/calibration
 * does. The case is calibration-policy-fixture.ts; judge exc against person h1, by hand:
 *   count:   n1 2/3 vs 0.5, n2 1/2 vs 0.5, n3 8/9 vs 1 (n4, a panel grade of exclude, left out)
 *            → n 3, MAE (1/6 + 0 + 1/9)/3 = 5/54, bias (1/6 − 1/9)/3 = 1/54
 *   exclude: n1 1 vs 0.5, n2 4/7 vs 0.5, n3 8/9 vs 1, n4 0.7 vs 0.7
 *            → n 4, MAE (1/2 + 1/14 + 1/9 + 0)/4 = 43/252, bias (1/2 + 1/14 − 1/9)/4 = 29/252
 */

afterAll(() => stopThreads());

describeDb('calibration page: the numeric scale under ?unverifiable=', (ctx) => {
  beforeAll(() => seedPolicyCalibration(ctx.database));
  const app = () => createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
  const judges = async (query: string) => {
    const res = await app().request(`http://127.0.0.1/calibration?scale=numeric${query}&table=judges&format=json`);
    expect(res.status).toBe(200);
    const rows = ((await res.json()) as { rows: Array<Record<string, unknown>> }).rows;
    return rows.find((r) => r.judge === 'exc')!;
  };
  const html = async (query: string) => (await app().request(`http://127.0.0.1/calibration?${query}`, { headers: { accept: 'text/html' } })).text();

  it('reads F1 under count by default and under exclude when asked: the judges table differs as computed by hand', async () => {
    const count = await judges('');
    expect(count.n).toBe(3);
    expect(count.mae as number).toBeCloseTo(5 / 54, 12);
    expect(count.bias as number).toBeCloseTo(1 / 54, 12);
    expect(await judges('&unverifiable=count')).toEqual(count);
    const exclude = await judges('&unverifiable=exclude');
    expect(exclude.n).toBe(4);
    expect(exclude.mae as number).toBeCloseTo(43 / 252, 12);
    expect(exclude.bias as number).toBeCloseTo(29 / 252, 12);
  });

  it('states the policy, the grades it left out, and keeps the choice in its forms', async () => {
    const count = await html('scale=numeric');
    expect(count).toContain('unverifiable claims <strong>counted in</strong> correctness');
    expect(count).toContain('1 grade left out: computed with unverifiable claims excluded');
    expect(count).toContain('MAE');
    const exclude = await html('scale=numeric&unverifiable=exclude');
    expect(exclude).toContain('unverifiable claims <strong>excluded from</strong> correctness');
    expect(exclude).not.toContain('grade left out');
    // The page's form and the panel section's form carry the policy on.
    expect(exclude).toMatch(/<select[^>]*name="unverifiable"[^]*?<option[^>]*value="exclude"[^>]*selected/);
  });

  it('a bad value is a 400 with the reason, as on the other F1 pages', async () => {
    const bad = await app().request('http://127.0.0.1/calibration?scale=numeric&unverifiable=drop');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { code: 'bad_input', message: "unverifiable: must be one of count, exclude, got 'drop'" } });
    const page = await app().request('http://127.0.0.1/calibration?unverifiable=drop', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(400);
  });
});
