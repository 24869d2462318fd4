import { beforeAll, expect, it } from 'vitest';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * The seeded report routes with a blank seed (`?seed=`, as a cleared form field sends it, or spaces).
 * docs/reports.md: an empty value means "not given" — the default seed 1. Before, the API coerced '' to
 * seed 0, so the intervals were another bootstrap's than the ones the same query without the field gives.
 * Numbers in query strings are plain decimals, as the pages read them: `0x1` is a 400, not seed 1.
 */
type Json = Record<string, any>;
const ROUTES = ['leaderboard', 'ablation', 'effort', 'calibration'] as const;

describeDb('report API: a blank seed is the default', (ctx) => {
  const api = useApi(ctx);
  const call = (path: string) => api.call(api.keys.read, 'GET', path);
  const body = async (path: string): Promise<Json> => {
    const res = await call(path);
    expect(res.status, path).toBe(200);
    return (await res.json()) as Json;
  };

  beforeAll(async () => {
    await seedExamples(ctx.database);
  });

  it('the leaderboard says seed 1 for ?seed= and ?seed=%20, as without it', async () => {
    expect((await body('/api/reports/leaderboard')).seed).toBe(1);
    expect((await body('/api/reports/leaderboard?seed=')).seed).toBe(1);
    expect((await body('/api/reports/leaderboard?seed=%20%20')).seed).toBe(1);
  });

  for (const route of ROUTES) {
    it(`${route}: ?seed= gives the report without a seed (and seed 0 is another report)`, async () => {
      const plain = await body(`/api/reports/${route}`);
      expect(await body(`/api/reports/${route}?seed=`)).toEqual(plain);
      expect(await body(`/api/reports/${route}?seed=%20`)).toEqual(plain);
      expect(await body(`/api/reports/${route}?seed=1`)).toEqual(plain);
      // The seed reaches the intervals, so the equalities above can fail.
      expect(await body(`/api/reports/${route}?seed=0`)).not.toEqual(plain);
    });

    it(`${route}: ?seed=0x1 is 400 with the envelope`, async () => {
      const res = await call(`/api/reports/${route}?seed=0x1`);
      expect(res.status).toBe(400);
      const e = (await res.json()) as Json;
      expect(e.error.code).toBe('bad_input');
      expect(e.error.message).toContain('seed');
      expect(e.error.message).toContain('plain decimal');
      expect((await call(`/api/reports/${route}?seed=4294967296`)).status).toBe(400);
    });
  }

  it('judge compare: blank top, seed and resamples are their defaults (not 0 answers listed, seed 0, or a 400)', async () => {
    const base = '/api/reports/judge-compare?run=farmyard-describe&a=lexical&b=lexical-strict';
    const plain = await body(base);
    expect(plain.f1Moves.top.length).toBeGreaterThan(0);
    expect(plain.bootstrap).toMatchObject({ seed: 1 });
    expect(await body(`${base}&top=&seed=&resamples=`)).toEqual(plain);
    expect(await body(`${base}&seed=%20`)).toEqual(plain);
    expect((await body(`${base}&top=0`)).f1Moves.top).toEqual([]);
    expect((await call(`${base}&top=0x2`)).status).toBe(400);
  });

  it('the document still says what the fields take (a number in range, its default)', async () => {
    const doc = (await (await api.call(null, 'GET', '/openapi.json')).json()) as Json;
    const param = (path: string, name: string) => doc.paths[path].get.parameters.find((p: Json) => p.name === name).schema;
    expect(param('/api/reports/leaderboard', 'seed')).toMatchObject({ type: 'integer', minimum: 0, maximum: 4294967295, default: 1 });
    expect(param('/api/reports/describe-then-solve', 'threshold')).toMatchObject({ type: 'number', minimum: -1, maximum: 1, default: 0.5 });
  });

  it('describe-then-solve: ?threshold=0x1 is 400, as the page refuses it', async () => {
    const res = await call('/api/reports/describe-then-solve?threshold=0x1');
    expect(res.status).toBe(400);
    const message = ((await res.json()) as Json).error.message as string;
    expect(message).toContain('threshold');
    const page = await api.call(api.keys.read, 'GET', '/describe-then-solve?threshold=0x1', { headers: { accept: 'application/json' } });
    expect(page.status).toBe(400);
  });
});
