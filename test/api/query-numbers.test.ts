import { beforeAll, expect, it } from 'vitest';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import { operations, type OpenApiDoc } from './openapi-walk.ts';

/**
 * Every number in a query string, on every GET operation of /openapi.json, is read by one rule
 * (src/api/schemas.ts queryNumber over domain/limit-values.ts readDecimal): blank (a cleared form field,
 * spaces) is not given, so the default; hex is a 400; a whole-number field takes digits only (no 1e1, 2.0).
 * Before, the list routes' limit and offset, the jobs' and grades' limit and a rubric's ?version= went
 * through z.coerce.number(): ?offset=0x10 skipped 16 rows, ?limit= was 0 (a 400 where the form meant
 * "the default"), ?version=0x1 fetched version 1, all as HTTP 200.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Param = { in: string; name: string; schema?: { type?: string | string[]; anyOf?: Array<{ type?: string }> } };

/** 'integer', 'number' or null: the JSON type of a parameter's schema, null left out (`number | null`). */
const numericType = (p: Param): 'integer' | 'number' | null => {
  const types = [p.schema?.type ?? [], ...(p.schema?.anyOf ?? []).map((s) => s.type ?? [])].flat();
  return types.includes('integer') ? 'integer' : types.includes('number') ? 'number' : null;
};

/** Row ids have their own rule (domain/limit-values.ts ROW_ID_TEXT): a blank one is refused, not "all". */
const ROW_ID_PARAMS = new Set(['GET /api/grades answer']);

const REQUIRED_QUERY: Record<string, string> = {
  'GET /api/reports/judge-compare': 'run=farmyard-describe&a=lexical&b=lexical-strict',
  'GET /api/runs/{id}/progress': 'judge=lexical',
};

describeDb('numbers in query strings', (ctx) => {
  const api = useApi(ctx);
  let doc: OpenApiDoc & { paths: Record<string, Record<string, { parameters?: Param[]; description?: string }>> };
  const pathValues: Record<string, string> = {};

  const send = async (path: string, key = api.keys.admin) => {
    const res = await api.call(key, 'GET', path);
    const text = await res.text();
    return { status: res.status, body: (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as Json };
  };

  beforeAll(async () => {
    await seedExamples(ctx.database);
    doc = (await (await api.call(null, 'GET', '/openapi.json')).json()) as typeof doc;
    expect((await api.call(api.keys.write, 'POST', '/api/runs/farmyard-describe/grade', { body: { judge: 'lexical' } })).status).toBe(202);
    const first = async (path: string) => (await send(path)).body.items[0];
    Object.assign(pathValues, {
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

  const fill = (template: string) =>
    template.replaceAll(/([a-z-]+)\/(\{\w+\})/g, (whole, resource: string, param: string) => {
      const v = pathValues[`${resource}/${param}`];
      if (v === undefined) throw new Error(`no seeded value for ${whole} in ${template}`);
      return `${resource}/${encodeURIComponent(v)}`;
    });

  /** Each GET operation's numeric query parameters, with the URL that succeeds without them. */
  const numericParams = () =>
    operations(doc)
      .filter((o) => o.method === 'GET' && !o.path.startsWith('/api/keys'))
      .flatMap(({ method, path, op }) => {
        const scope = /Scope: `(\w+)`/.exec((op as { description?: string }).description ?? '')?.[1];
        const key = scope === 'annotate' ? api.keys.annotate : api.keys.admin;
        const required = REQUIRED_QUERY[`${method} ${path}`];
        const base = `${fill(path)}?${required ? `${required}&` : ''}`;
        return ((op as { parameters?: Param[] }).parameters ?? [])
          .filter((p) => p.in === 'query' && numericType(p) !== null)
          .map((p) => ({ name: `${method} ${path} ${p.name}`, param: p.name, integer: numericType(p) === 'integer', base, key }));
      });

  it('finds the numeric query parameters (limit, offset, version, seed, top, threshold)', () => {
    const names = numericParams().map((p) => p.name);
    for (const n of ['GET /api/runs limit', 'GET /api/runs offset', 'GET /api/jobs limit', 'GET /api/grades limit', 'GET /api/rubrics/{id} version', 'GET /api/reports/leaderboard seed']) {
      expect(names).toContain(n);
    }
  });

  it('a blank number is not given: the same answer as without it', async () => {
    const wrong: string[] = [];
    for (const p of numericParams().filter((x) => !ROW_ID_PARAMS.has(x.name))) {
      const plain = await send(p.base, p.key);
      if (plain.status !== 200) {
        wrong.push(`${p.name}: control ${plain.status} ${JSON.stringify(plain.body).slice(0, 200)}`);
        continue;
      }
      for (const blank of ['', '%20%20']) {
        const r = await send(`${p.base}${p.param}=${blank}`, p.key);
        if (r.status !== 200 || JSON.stringify(r.body) !== JSON.stringify(plain.body)) wrong.push(`${p.name}='${blank}': ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('hex, and on a whole-number field an exponent or a point, are 400 with the envelope naming the field', async () => {
    const wrong: string[] = [];
    for (const p of numericParams()) {
      for (const v of ['0x1', ...(p.integer ? ['1e1', '1.0'] : ['Infinity'])]) {
        const r = await send(`${p.base}${p.param}=${v}`, p.key);
        if (r.status !== 400 || r.body?.error?.code !== 'bad_input' || !String(r.body.error.message).includes(p.param)) {
          wrong.push(`${p.name}=${v}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('?offset=0x10 no longer skips 16 rows; ?offset=16 still does', async () => {
    const all = await send('/api/answers?limit=1000');
    expect(all.body.items.length).toBeGreaterThan(16);
    expect((await send('/api/answers?offset=16&limit=1000')).body.items[0]).toEqual(all.body.items[16]);
    expect((await send('/api/answers?offset=0x10')).status).toBe(400);
    expect((await send('/api/answers?offset=%2016%20&limit=1000')).body.items[0]).toEqual(all.body.items[16]);
  });

  it('an offset past the int4 range is 400, not a database error', async () => {
    for (const v of ['2147483648', '99999999999999', '99999999999999999999']) {
      const r = await send(`/api/answers?offset=${v}`);
      expect(r.status, v).toBe(400);
      expect(r.body.error.message).toContain('offset');
    }
    expect((await send('/api/answers?offset=2147483647')).body.items).toEqual([]);
  });

  it('a rubric ?version= is the latest, ?version=0x1 a 400 (before: version 1)', async () => {
    const latest = await send('/api/rubrics/farmyard-54');
    expect(latest.status).toBe(200);
    expect((await send('/api/rubrics/farmyard-54?version=')).body).toEqual(latest.body);
    expect((await send(`/api/rubrics/farmyard-54?version=${latest.body.version}`)).body).toEqual(latest.body);
    expect((await send('/api/rubrics/farmyard-54?version=0x1')).status).toBe(400);
  });
});
