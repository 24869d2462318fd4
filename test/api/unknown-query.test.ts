import { beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { CAMPAIGN_EXAMPLE } from '../../src/api/examples/request-examples.ts';
import { createKey } from '../../src/services/keys.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import { operations, type OpenApiDoc } from './openapi-walk.ts';

/**
 * A query parameter an operation does not declare is bad input, on every operation of /openapi.json.
 * Before, zod dropped it without a word: `POST /api/answers?rn=mine` imported into a run named after
 * the model and `GET /api/grades?judeg=x` listed every judge's grades, both HTTP 200.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
interface Media {
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
type Op = {
  description?: string;
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { content: Record<string, Media> };
};

/** Query parameters an operation needs to succeed at all (so the control request without the unknown one is 2xx). */
const REQUIRED_QUERY: Record<string, string> = {
  'GET /api/reports/judge-compare': 'run=farmyard-describe&a=lexical&b=lexical-strict',
  'GET /api/runs/{id}/progress': 'judge=lexical',
};

/** Every row of every table, the queue's included: "nothing written" over the whole database. */
async function allRowCounts(database: Database): Promise<Record<string, number>> {
  const tables = await database.execute(
    "select table_schema as s, table_name as t from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1, 2",
  );
  const out: Record<string, number> = {};
  for (const { s, t } of tables.rows as Array<{ s: string; t: string }>) {
    const r = await database.execute(`select count(*)::int as n from "${s}"."${t}"`);
    out[`${s}.${t}`] = Number((r.rows[0] as { n: number }).n);
  }
  return out;
}

const examplesOf = (m: Media): unknown[] => [...('example' in m ? [m.example] : []), ...Object.values(m.examples ?? {}).map((e) => e.value)];

describeDb('unknown query parameters', (ctx) => {
  const api = useApi(ctx);
  let doc: OpenApiDoc & { paths: Record<string, Record<string, Op>> };
  const keyOf: Record<string, string | null> = {};
  const pathValues: Record<string, string> = {};

  const send = async (key: string | null, method: string, path: string, body?: unknown, type = 'application/json') => {
    const res = await api.call(key, method, path, body === undefined ? {} : { body, headers: { 'content-type': type } });
    const text = await res.text();
    return { status: res.status, body: (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as Json };
  };

  beforeAll(async () => {
    await seedExamples(ctx.database);
    doc = (await (await api.call(null, 'GET', '/openapi.json')).json()) as typeof doc;
    const ann = await createKey(ctx.database, { scopes: ['annotate'], name: 'ann' });
    Object.assign(keyOf, { public: null, read: api.keys.read, write: api.keys.write, admin: api.keys.admin, annotate: ann.key });
    expect((await send(api.keys.admin, 'POST', '/api/campaigns', CAMPAIGN_EXAMPLE)).status).toBe(201);
    // Progress exists only for an enqueued run (no worker here: the jobs stay queued).
    expect((await send(api.keys.write, 'POST', '/api/runs/farmyard-describe/grade', { judge: 'lexical' })).status).toBe(202);
    const first = async (path: string) => (await send(api.keys.read, 'GET', path)).body.items[0];
    const spare = await createKey(ctx.database, { scopes: ['read'], name: 'spare' });
    Object.assign(pathValues, {
      'keys/{prefix}': spare.prefix,
      'rubrics/{id}': 'farmyard-54',
      'puzzles/{id}': (await first('/api/puzzles')).id,
      'runs/{name}': 'farmyard-describe',
      'runs/{id}': 'farmyard-describe',
      'answers/{id}': '10',
      'assemblies/{answerId}': String((await first('/api/assemblies')).answerId),
      'grades/{id}': String((await first('/api/grades')).gradeId),
      'campaigns/{ref}': 'farm-study',
    });
  }, 180_000);

  /** The template with each parameter replaced by a seeded value of its resource. */
  const fill = (template: string) =>
    template.replaceAll(/([a-z-]+)\/(\{\w+\})/g, (whole, resource: string, param: string) => {
      const v = pathValues[`${resource}/${param}`];
      if (v === undefined) throw new Error(`no seeded value for ${whole} in ${template}`);
      return `${resource}/${encodeURIComponent(v)}`;
    });
  const scopeOf = (o: Op) => /Scope: `(\w+)`/.exec(o.description ?? '')?.[1] ?? 'unknown';
  const queryNames = (o: Op) => (o.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const takes = (names: string[]) => (names.length ? `this operation takes: ${names.join(', ')}` : 'this operation takes no query parameters');

  it('refuses an undeclared query parameter on every operation, naming it and what the operation takes, writing nothing', async () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(50);
    expect(ops.flatMap((o) => queryNames(o.op as Op)), "'rn' is no operation's parameter").not.toContain('rn');
    const before = await allRowCounts(ctx.database);
    const beforeHelper = await rowCounts(ctx.database);
    const wrong: string[] = [];
    let writes = 0;
    for (const { method, path, op } of ops) {
      const o = op as Op;
      const name = `${method} ${path}`;
      const key = keyOf[scopeOf(o)];
      expect(key, `${name}: a key for scope ${scopeOf(o)}`).toBeDefined();
      const [type, media] = Object.entries(o.requestBody?.content ?? {})[0] ?? [];
      const body = media ? examplesOf(media)[0] : undefined;
      const required = REQUIRED_QUERY[name];
      const url = `${fill(path)}?${required ? `${required}&` : ''}rn=mine`;
      const r = await send(key!, method, url, body, type);
      const expected = { error: { code: 'bad_input', message: `unknown query parameter 'rn' (${takes(queryNames(o))})` } };
      if (r.status !== 400 || JSON.stringify(r.body) !== JSON.stringify(expected)) wrong.push(`${name}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      if (method !== 'GET') writes++;
    }
    expect(wrong).toEqual([]);
    expect(writes).toBeGreaterThanOrEqual(20);
    expect(await allRowCounts(ctx.database)).toEqual(before);
    expect(await rowCounts(ctx.database)).toEqual(beforeHelper);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(Object.keys(beforeHelper).map((t) => `public.${t}`)));
  }, 120_000);

  it('answers every read operation 2xx without the unknown parameter (it was the only problem)', async () => {
    const failed: string[] = [];
    for (const { method, path, op } of operations(doc).filter((o) => o.method === 'GET')) {
      const name = `${method} ${path}`;
      const required = REQUIRED_QUERY[name];
      const r = await send(keyOf[scopeOf(op as Op)]!, method, `${fill(path)}${required ? `?${required}` : ''}`);
      if (r.status < 200 || r.status >= 300) failed.push(`${name}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }
    expect(failed).toEqual([]);
  }, 120_000);

  it('refuses the typos of the report: ?rn= on an upload imports nothing, ?judeg= lists nothing', async () => {
    const line = JSON.stringify({ id: 'typo-1', task: 'describe', rubric: 'farmyard-54', text: 'A red barn.' });
    const before = await allRowCounts(ctx.database);
    const up = await send(api.keys.write, 'POST', '/api/answers?rn=mine&model=m-typo', line, 'application/x-ndjson');
    expect(up).toEqual({
      status: 400,
      body: { error: { code: 'bad_input', message: "unknown query parameter 'rn' (this operation takes: run, model, effort, task, tags)" } },
    });
    expect(await allRowCounts(ctx.database)).toEqual(before);
    expect((await send(api.keys.read, 'GET', '/api/runs/m-typo')).status).toBe(404);

    const grades = await send(api.keys.read, 'GET', '/api/grades?judeg=x');
    expect(grades.status).toBe(400);
    expect(grades.body.error.message).toBe("unknown query parameter 'judeg' (this operation takes: run, model, judge, status, answer, limit, cursor)");
  });

  it('keeps the declared parameters working: ?run= filters, ?run= names the imported run', async () => {
    const all = await send(api.keys.read, 'GET', '/api/grades?limit=1000');
    const one = await send(api.keys.read, 'GET', '/api/grades?run=farmyard-describe&limit=1000');
    expect([all.status, one.status]).toEqual([200, 200]);
    const answers = await send(api.keys.read, 'GET', '/api/answers?run=farmyard-describe&limit=1000');
    const ids = new Set(answers.body.items.map((a: Json) => a.id));
    expect(ids.size).toBeGreaterThan(0);
    const inRun = all.body.items.filter((g: Json) => ids.has(g.answerId));
    expect(one.body.items.length).toBeGreaterThan(0);
    expect(one.body.items.length).toBeLessThan(all.body.items.length);
    expect(one.body.items.map((g: Json) => g.gradeId).sort()).toEqual(inRun.map((g: Json) => g.gradeId).sort());

    const line = JSON.stringify({ id: 'typo-2', task: 'describe', rubric: 'farmyard-54', text: 'A red barn.' });
    const up = await send(api.keys.write, 'POST', '/api/answers?run=mine&model=m-declared', line, 'application/x-ndjson');
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect((await send(api.keys.read, 'GET', '/api/runs/mine')).body).toMatchObject({ name: 'mine', model: 'm-declared' });
  });

  it('refuses a one-value parameter given twice (the validator kept one of them without a word), writing nothing', async () => {
    const line = JSON.stringify({ id: 'twice-1', task: 'describe', rubric: 'farmyard-54', text: 'A red barn.' });
    const before = await allRowCounts(ctx.database);
    const up = await send(api.keys.write, 'POST', '/api/answers?run=a&run=b&model=m-twice', line, 'application/x-ndjson');
    expect(up).toEqual({ status: 400, body: { error: { code: 'bad_input', message: "query parameter 'run' is given more than once; it takes one value" } } });
    expect(await allRowCounts(ctx.database)).toEqual(before);
    const grades = await send(api.keys.read, 'GET', '/api/grades?judge=lexical&judge=panel-lexical');
    expect(grades.body.error.message).toBe("query parameter 'judge' is given more than once; it takes one value");
    expect((await send(api.keys.read, 'GET', '/api/grades?judge=lexical&limit=5')).status).toBe(200);
  });

  it('names every unknown parameter, decoded; checks the key first; treats a parameter without a value as given', async () => {
    const several = await send(api.keys.read, 'GET', '/api/grades?run=farmyard-describe&judeg=x&r%75n2=y');
    expect(several.body).toEqual({
      error: { code: 'bad_input', message: "unknown query parameters 'judeg', 'run2' (this operation takes: run, model, judge, status, answer, limit, cursor)" },
    });
    expect((await send(api.keys.read, 'GET', '/api/rubrics/farmyard-54?lang')).body.error.message).toBe("unknown query parameter 'lang' (this operation takes: version)");
    expect((await send(null, 'GET', '/health?x=1')).body.error.message).toBe("unknown query parameter 'x' (this operation takes no query parameters)");
    expect((await send(null, 'GET', '/api/grades?judeg=x')).status).toBe(401);
    expect((await send(api.keys.read, 'GET', '/api/grades?cursor')).status).toBe(400); // declared, empty: the schema's own refusal
    expect((await send(api.keys.read, 'GET', '/api/grades?cursor')).body.error.message).toMatch(/^query\.cursor: /);
  });
});
