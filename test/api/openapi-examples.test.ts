import type { Ajv2020 } from 'ajv/dist/2020.js';
import { openApiValidator } from './openapi-ajv.ts';
import { beforeAll, expect, it } from 'vitest';
import { createKey } from '../../src/services/keys.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import { operations, type OpenApiDoc, type Schema } from './openapi-walk.ts';

/**
 * Issue 16: the examples of /openapi.json are true. Every request body has one; every example (request,
 * response, error) matches the schema beside it; and every request example, sent to a server that has
 * loaded the bundled examples (as `npm start` does), in an order where each finds what it names, succeeds —
 * answering exactly the response example where the document gives one. The stateless operations
 * (/api/stats/*, /api/calibrate, keys, rubric and puzzle imports) need none of that data. Each 400 example
 * is the answer to the body its description names, sent again here.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
interface Media {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { summary?: string; description?: string; value: unknown }>;
}
type Op = { requestBody?: { content: Record<string, Media> }; responses: Record<string, { content?: Record<string, Media> }> };

/** Request bodies deliberately without an example, each with why (none today). */
const NO_EXAMPLE: Record<string, string> = {};

type KeyName = 'admin' | 'ann' | 'bea' | 'judy';
/**
 * Every operation with a request example, in the order they are sent: the path its template stands for
 * and the key that sends it (ann is the key POST /api/keys's example creates). `before` sets up what an
 * example needs that no other example makes.
 */
const FLOW: Array<{ op: string; path: string; key: KeyName; before?: (send: Send) => Promise<void> }> = [
  ...['kappa', 'fleiss', 'alpha', 'wilson', 'corr', 'icc', 'mcnemar'].map((s) => ({ op: `POST /api/stats/${s}`, path: `/api/stats/${s}`, key: 'admin' as const })),
  { op: 'POST /api/calibrate', path: '/api/calibrate', key: 'admin' },
  { op: 'POST /api/keys', path: '/api/keys', key: 'admin' },
  { op: 'POST /api/rubrics', path: '/api/rubrics', key: 'admin' },
  { op: 'POST /api/puzzles', path: '/api/puzzles', key: 'admin' },
  { op: 'POST /api/answers', path: '/api/answers', key: 'admin' },
  { op: 'POST /api/labels', path: '/api/labels', key: 'admin' },
  { op: 'POST /api/assemblies', path: '/api/assemblies', key: 'admin' },
  { op: 'POST /api/grades', path: '/api/grades', key: 'admin' },
  { op: 'POST /api/runs/{id}/grade', path: '/api/runs/my-run/grade', key: 'admin' },
  { op: 'POST /api/runs/{id}/grade/cancel', path: '/api/runs/my-run/grade/cancel', key: 'admin' },
  { op: 'POST /api/jobs/retry', path: '/api/jobs/retry', key: 'admin' },
  { op: 'POST /api/annotations', path: '/api/annotations', key: 'ann' },
  { op: 'POST /api/campaigns', path: '/api/campaigns', key: 'admin' },
  { op: 'POST /api/campaigns/{ref}/labels', path: '/api/campaigns/farm-study/labels', key: 'ann' },
  {
    op: 'POST /api/campaigns/{ref}/adjudications',
    path: '/api/campaigns/farm-study/adjudications',
    key: 'judy',
    // A final label needs a disagreement: bea fails the answer ann passed.
    before: async (send) => expect((await send('bea', 'POST', '/api/campaigns/farm-study/labels', { answerId: 10, marks: [{ scale: 'binary', label: false }, { scale: 'numeric', label: 2 }] })).status).toBe(200),
  },
];

/** Response fields that are not a function of the request (ids a database hands out, clocks). */
const VOLATILE: Record<string, string[]> = { 'POST /api/grades': ['gradeId', 'answerId', 'createdAt', 'usage.latencyMs'] };

type Send = (key: KeyName, method: string, path: string, body: unknown, type?: string) => Promise<{ status: number; body: Json }>;

/** The examples of one media type object: its `example`, or the values of its named `examples`. */
const examplesOf = (m: Media): unknown[] => [...('example' in m ? [m.example] : []), ...Object.values(m.examples ?? {}).map((e) => e.value)];
const jsonOf = (c: Record<string, Media> | undefined): Media | undefined => c?.['application/json'];

/** Within 1e-12 of each other, relatively: the same figure, summed in another order. */
const sameFigure = (a: number, e: number) => a === e || Math.abs(a - e) <= 1e-12 * Math.max(Math.abs(a), Math.abs(e));

/** `actual` with its numbers that are `expected`'s to the last bits set to them (a refactor of a sum may move a last digit). */
function rounded(actual: Json, expected: Json): Json {
  if (typeof actual === 'number' && typeof expected === 'number') return sameFigure(actual, expected) ? expected : actual;
  if (Array.isArray(actual) && Array.isArray(expected)) return actual.map((a, i) => rounded(a, expected[i]));
  if (actual && expected && typeof actual === 'object' && typeof expected === 'object') return Object.fromEntries(Object.entries(actual).map(([k, v]) => [k, rounded(v, expected[k])]));
  return actual;
}

/** `actual` as it must equal the example: volatile fields taken from `expected`, figures equal to the last bits made equal. */
function comparable(actual: Json, expected: Json, paths: string[]): Json {
  const out = rounded(actual, expected);
  for (const p of paths) {
    const keys = p.split('.');
    const last = keys.pop()!;
    let a = out;
    let e = expected;
    for (const k of keys) [a, e] = [a?.[k], e?.[k]];
    if (a && typeof a === 'object' && last in a && e && last in e) a[last] = e[last];
  }
  return out;
}

describeDb('the examples of the OpenAPI document', (ctx) => {
  const api = useApi(ctx);
  let doc: OpenApiDoc & { paths: Record<string, Record<string, Op>> };
  let ajv: Ajv2020;
  const keys = {} as Record<KeyName, string>;
  const send: Send = async (key, method, path, body, type = 'application/json') => {
    const res = await api.call(keys[key], method, path, { body, headers: { 'content-type': type } });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : null };
  };
  const op = (key: string): Op => {
    const [method, path] = key.split(' ') as [string, string];
    const o = doc.paths[path]?.[method.toLowerCase()];
    expect(o, `${key} is an operation`).toBeDefined();
    return o!;
  };
  const validates = (schema: Schema, value: unknown): unknown => {
    const v = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')) as Schema);
    return v(value) ? [] : v.errors;
  };

  beforeAll(async () => {
    await seedExamples(ctx.database);
    doc = (await (await api.call(null, 'GET', '/openapi.json')).json()) as typeof doc;
    ajv = openApiValidator(doc.components);
    keys.admin = api.keys.admin;
    for (const name of ['bea', 'judy'] as const) keys[name] = (await createKey(ctx.database, { scopes: ['annotate'], name })).key;
  }, 180_000);

  it('gives every request body an example, in each media type it takes', () => {
    const bodies = operations(doc).filter((o) => o.op.requestBody);
    expect(bodies.length).toBeGreaterThan(20);
    const missing = bodies.flatMap(({ method, path, op: o }) =>
      Object.entries((o as Op).requestBody!.content)
        .filter(([, m]) => examplesOf(m).length === 0)
        .map(([type]) => `${method} ${path} ${type}`),
    );
    expect(missing.filter((m) => !(m.split(' ').slice(0, 2).join(' ') in NO_EXAMPLE))).toEqual([]);
    for (const o of Object.keys(NO_EXAMPLE)) expect(op(o).requestBody, `${o} still takes a body`).toBeDefined();
  });

  it('matches every example (request, response, error) against the schema beside it', () => {
    let checked = 0;
    for (const { method, path, op: o } of operations(doc)) {
      const media = [...Object.entries((o as Op).requestBody?.content ?? {}).map(([t, m]) => [`request ${t}`, m] as const), ...Object.entries(o.responses).flatMap(([s, r]) => Object.entries((r as { content?: Record<string, Media> }).content ?? {}).map(([t, m]) => [`${s} ${t}`, m] as const))];
      for (const [where, m] of media) {
        for (const value of examplesOf(m)) {
          expect(validates(m.schema!, value), `${method} ${path} ${where}: example matches its schema`).toEqual([]);
          // A JSON Lines example is a string to the schema: each of its lines must be a JSON object.
          if (where.startsWith('request application/') && where !== 'request application/json') {
            for (const line of (value as string).split('\n').filter(Boolean)) expect(typeof JSON.parse(line), `${method} ${path}: ${line}`).toBe('object');
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(38);
  });

  it('sends every request example in turn: each succeeds, and answers the response example where there is one', async () => {
    // The examples name the bundled ones: answer 10 is a-low-describe, in docs/annotation.md's study.
    expect((await send('admin', 'GET', '/api/answers/10', undefined)).body).toMatchObject({ externalId: 'a-low-describe' });
    const sent = new Set<string>();
    const compared = new Set<string>();
    for (const step of FLOW) {
      await step.before?.(send);
      const [method] = step.op.split(' ') as [string];
      const [type, media] = Object.entries(op(step.op).requestBody!.content)[0]!;
      const r = await send(step.key, method, step.path, examplesOf(media)[0], type);
      expect(r.status, `${step.op}: ${JSON.stringify(r.body).slice(0, 300)}`).toBeGreaterThanOrEqual(200);
      expect(r.status, `${step.op}: ${JSON.stringify(r.body).slice(0, 300)}`).toBeLessThan(300);
      if (step.op === 'POST /api/keys') keys.ann = r.body.key;
      const response = jsonOf(op(step.op).responses[String(r.status)]?.content);
      if (response && examplesOf(response).length > 0) {
        const expected = examplesOf(response)[0];
        expect(comparable(r.body, expected, VOLATILE[step.op] ?? []), `${step.op}: the response example is what it answers`).toEqual(expected);
        compared.add(`${step.op} ${r.status}`);
      }
      sent.add(step.op);
    }
    const withRequestExample = operations(doc).filter((o) => Object.values((o.op as Op).requestBody?.content ?? {}).some((m) => examplesOf(m).length > 0));
    expect(withRequestExample.map((o) => `${o.method} ${o.path}`).filter((o) => !sent.has(o)), 'request examples never sent').toEqual([]);
    const responseExamples = operations(doc).flatMap(({ method, path, op: o }) =>
      Object.entries(o.responses)
        .filter(([s, r]) => s.startsWith('2') && examplesOf(jsonOf((r as { content?: Record<string, Media> }).content) ?? {}).length > 0)
        .map(([s]) => `${method} ${path} ${s}`),
    );
    expect(responseExamples.filter((e) => !compared.has(e)), 'response examples never compared with an answer').toEqual([]);
    expect(compared.size).toBeGreaterThanOrEqual(10);
  }, 120_000);

  it('answers each 400 example to the body its description names, and writes nothing', async () => {
    let checked = 0;
    const before = await rowCounts(ctx.database);
    for (const { method, path, op: o } of operations(doc)) {
      for (const [name, e] of Object.entries(jsonOf(o.responses['400']?.content as Record<string, Media>)?.examples ?? {})) {
        const body = /`(.+)`$/.exec(e.description ?? '')?.[1];
        expect(body, `${method} ${path} 400 ${name}: its description names the body`).toBeDefined();
        const step = FLOW.find((s) => s.op === `${method} ${path}`);
        const r = await send(step?.key ?? 'admin', method, step?.path ?? path, JSON.parse(body!));
        expect([r.status, r.body], `${method} ${path} 400 ${name}`).toEqual([400, e.value]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3);
    expect(await rowCounts(ctx.database)).toEqual(before);
  });
});
