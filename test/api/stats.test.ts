import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * POST /api/stats/*: published values through HTTP, and the same JSON document as `assay stats … --json`
 * on the same data in files (one process for all the CLI runs would hide nothing: each is the real binary).
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-stats-api-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
};

// SAS / statsmodels table [[0,4,1],[0,8,0],[0,1,5]] as label arrays (kappa 0.4842, ASE 0.1380).
const sasA = [...Array(5).fill(0), ...Array(8).fill(1), ...Array(6).fill(2)];
const sasB = [1, 1, 1, 1, 2, ...Array(8).fill(1), 1, 2, 2, 2, 2, 2];
// Krippendorff (2011) reliability data: nominal alpha 0.743.
const kripp = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
  [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
];
// Shrout & Fleiss (1979) Table 2: ICC1 0.166, ICC3k 0.909.
const shrout = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]];
// Fleiss (1971) as raw labels would be long; a small subjects × categories count table (3 raters each).
const counts = [[3, 0], [0, 3], [2, 1], [1, 2], [3, 0]];

describeDb('POST /api/stats/*', (ctx) => {
  const api = useApi(ctx);
  // Response bodies are read as the loose JSON they are; the values are what the tests check.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const post = (name: string, body: unknown, key = api.keys.read) => api.call(key, 'POST', `/api/stats/${name}`, { body }) as Promise<Omit<Response, 'json'> & { json(): Promise<any> }>;

  it('kappa: SAS example (0.4842, ASE 0.1380, CI 0.2137–0.7547)', async () => {
    const r = await post('kappa', { a: sasA, b: sasB });
    expect(r.status).toBe(200);
    const j = await r.json();
    expect(j.kappa).toBeCloseTo(0.4842, 4);
    expect(j.se).toBeCloseTo(0.138, 3);
    expect(j.ci[0]).toBeCloseTo(0.2137, 4);
    expect(j.ci[1]).toBeCloseTo(0.7547, 4);
    expect([j.n, j.method, j.weights]).toEqual([19, 'cohen', 'none']);
  });

  it('alpha, icc and wilson: the published values', async () => {
    expect((await (await post('alpha', { data: kripp, level: 'nominal' })).json()).alpha).toBeCloseTo(0.743, 3);
    expect((await (await post('alpha', { data: kripp, level: 'interval' })).json()).alpha).toBeCloseTo(0.849, 3);
    const icc = await (await post('icc', { data: shrout })).json();
    expect(icc.ICC1.value).toBeCloseTo(0.166, 3);
    expect(icc.ICC3k.value).toBeCloseTo(0.909, 3);
    const w = await (await post('wilson', { successes: 18, trials: 20 })).json();
    expect(w.ci[0]).toBeCloseTo(0.6989664, 7);
    expect(w.ci[1]).toBeCloseTo(0.9721335, 7);
  });

  it('each document equals `assay stats … --json` on the same data', async () => {
    const cases: [string, unknown, string[]][] = [
      ['kappa', { a: sasA, b: sasB, weights: 'linear', method: 'scott' }, ['--a', file('a.json', sasA), '--b', file('b.json', sasB), '--weights', 'linear', '--method', 'scott']],
      ['fleiss', { data: counts }, ['--data', file('counts.json', counts)]],
      ['alpha', { data: kripp, level: 'ordinal' }, ['--data', file('k.json', kripp), '--level', 'ordinal']],
      ['wilson', { successes: 3, trials: 7, confidence: 0.9 }, ['--successes', '3', '--trials', '7', '--confidence', '0.9']],
      ['corr', { x: [1, 2, 3, 4, 5, 6], y: [2, 1, 4, 3, 6, 5], method: 'kendall' }, ['--x', file('x.json', [1, 2, 3, 4, 5, 6]), '--y', file('y.json', [2, 1, 4, 3, 6, 5]), '--method', 'kendall']],
      ['icc', { data: shrout }, ['--data', file('sf.json', shrout)]],
      ['mcnemar', { b: 25, c: 6, exact: true }, ['--b', '25', '--c', '6', '--exact']],
    ];
    for (const [name, body, argv] of cases) {
      const cli = runCli(['stats', name, ...argv, '--json']);
      expect(cli.code, cli.stderr).toBe(0);
      const r = await post(name, body);
      expect(r.status, name).toBe(200);
      expect(await r.json(), name).toEqual(cli.json());
    }
  }, 120_000);

  it('warnings come back in the document (a transposed alpha matrix)', async () => {
    const tall = [[1, 1], [2, 2], [1, 2]];
    const j = await (await post('alpha', { data: tall, level: 'nominal' })).json();
    expect(j.warnings).toEqual([expect.stringMatching(/^data has 3 rows and 2 columns, read as 3 raters × 2 units/)]);
  });

  it('bad input is 400 with the envelope naming the field; a missing key is 401', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['kappa', { a: [1, 2], b: [1] }, /^a has 2 labels but b has 1/],
      ['kappa', { a: [1, null], b: [1, 2] }, /^a: value 2 is missing/],
      ['kappa', { a: [1, 2], b: [1, 2], confidence: 1.5 }, /confidence must be strictly between 0 and 1/],
      ['alpha', { data: [[1, 2], [1]], level: 'nominal' }, /^data: row 2 has 1 values, row 1 has 2 \(ragged matrix\)/],
      ['wilson', { successes: 5, trials: 3 }, /^successes 5 cannot exceed trials 3/],
      ['icc', { data: [[1, 2], [3, 'x']] }, /^data: row 2, column 2 is "x", expected a number/],
      ['fleiss', { data: counts, raw: true, categories: ['a'] }, /^categories: not used with raw/],
      // Text has no order of its own: before, these were read alphabetically (high < low < medium), 200.
      ['kappa', { a: ['low', 'high'], b: ['medium', 'high'], weights: 'linear' }, /^weighted kappa needs the categories' order: the labels are text \(high, low, medium\), which has no order of its own; give categories listing them from lowest to highest$/],
      ['alpha', { data: [['low', 'high'], ['medium', 'high']], level: 'ordinal' }, /^ordinal alpha needs the values' order: the labels are text \(high, low, medium\), which has no order of its own; give order listing them from lowest to highest$/],
      ['corr', { x: [1, 2], y: [1, 2], extra: 1 }, /extra|unrecognized/i],
    ];
    for (const [name, body, message] of cases) {
      const r = await post(name, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      const j = await r.json();
      expect(j.error.code).toBe('bad_input');
      expect(j.error.message).toMatch(message);
    }
    expect((await post('wilson', { successes: 1, trials: 2 }, null as never)).status).toBe(401);
  });

  it('are in the OpenAPI document with typed request and response schemas', async () => {
    const doc = (await (await api.app.request('/openapi.json')).json()) as { paths: Record<string, { post: { operationId: string; responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> } }> };
    for (const name of ['kappa', 'fleiss', 'alpha', 'wilson', 'corr', 'icc', 'mcnemar']) {
      const op = doc.paths[`/api/stats/${name}`]!.post;
      expect(op.operationId).toBe(`stats${name[0]!.toUpperCase()}${name.slice(1)}`);
      expect(op.responses["200"]!.content["application/json"]!.schema.$ref).toBe(`#/components/schemas/Stats${name[0]!.toUpperCase()}${name.slice(1)}`);
    }
  });
});
