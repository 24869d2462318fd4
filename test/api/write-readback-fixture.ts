import { expect } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import type { ApiFixture } from './app-fixture.ts';
import { operations, type OpenApiDoc } from './openapi-walk.ts';

/**
 * The write-route read-back audit (test/api/write-readback-*.test.ts): every POST/PUT/PATCH/DELETE of
 * /openapi.json is given to one of the audit's files, which performs it, reads back what the 2xx said
 * through the API's GET routes and the database, and sends it refused bodies that must change no table.
 * A write route that appears without an entry here fails write-readback-grading.test.ts; a file that
 * leaves one of its routes unexercised fails itself.
 */
export const WRITE_ROUTES: Record<string, 'catalog' | 'grading'> = {
  'POST /api/keys': 'catalog',
  'DELETE /api/keys/{prefix}': 'catalog',
  'POST /api/rubrics': 'catalog',
  'POST /api/puzzles': 'catalog',
  'POST /api/answers': 'catalog',
  'POST /api/assemblies': 'catalog',
  'POST /api/labels': 'catalog',
  'POST /api/annotations': 'catalog',
  'POST /api/grades': 'grading',
  'POST /api/runs/{id}/grade': 'grading',
  'POST /api/jobs/retry': 'grading',
  'POST /api/runs/{id}/grade/cancel': 'grading',
  'POST /api/stats/kappa': 'grading',
  'POST /api/stats/fleiss': 'grading',
  'POST /api/stats/alpha': 'grading',
  'POST /api/stats/wilson': 'grading',
  'POST /api/stats/corr': 'grading',
  'POST /api/stats/icc': 'grading',
  'POST /api/stats/mcnemar': 'grading',
  'POST /api/calibrate': 'grading',
  'POST /api/campaigns': 'grading',
  'POST /api/campaigns/{ref}/labels': 'grading',
  'POST /api/campaigns/{ref}/adjudications': 'grading',
};

export const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export async function writeOps(api: ApiFixture): Promise<string[]> {
  const doc = (await (await api.app.request('/openapi.json')).json()) as OpenApiDoc;
  return operations(doc)
    .filter((o) => WRITE_METHODS.has(o.method))
    .map((o) => `${o.method} ${o.path}`)
    .sort();
}

/** Row counts of every table the application owns, and of the job queue's jobs by state. */
export async function allCounts(database: Database): Promise<Record<string, number>> {
  const tables = await database.execute(`select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`);
  const out: Record<string, number> = {};
  // One statement for every table: the audit counts before and after each of its ~30 refusals.
  const names = (tables.rows as Array<{ t: string }>).map((r) => r.t);
  const counted = await database.execute(names.map((t) => `select '${t}' as t, count(*)::int as n from "${t}"`).join(' union all '));
  for (const r of counted.rows as Array<{ t: string; n: number }>) out[r.t] = Number(r.n);
  const boss = await database.execute(`select count(*)::int as n from information_schema.tables where table_schema = 'pgboss' and table_name = 'job'`);
  if (Number(boss.rows[0].n) > 0) {
    for (const r of (await database.execute(`select state::text as s, count(*)::int as n from pgboss.job group by 1`)).rows as Array<{ s: string; n: number }>) out[`pgboss.job:${r.s}`] = Number(r.n);
  }
  return out;
}

const volatile = (counts: Record<string, number>) => {
  // A request's key records its last use (api_keys.last_used_at): no write of the route.
  const { api_keys: _k, ...rest } = counts;
  return rest;
};

export interface Sent {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** Sends requests and records which write operation (by its OpenAPI template) each one was. */
export function recorder(api: ApiFixture) {
  const hit = new Set<string>();
  const templates = Object.keys(WRITE_ROUTES).map((op) => {
    const [method, path] = op.split(' ') as [string, string];
    return { op, method, re: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) };
  });
  async function send(key: string, method: string, path: string, body?: unknown, type?: string): Promise<Sent> {
    const bare = path.split('?')[0]!;
    const t = templates.find((x) => x.method === method && x.re.test(bare));
    if (t) hit.add(t.op);
    const res = await api.call(key, method, path, { ...(body !== undefined ? { body } : {}), ...(type ? { headers: { 'content-type': type } } : {}) });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  }
  return {
    hit,
    send,
    /** A request that must be refused with `status` (and `code`) and leave every table as it was. */
    async refused(database: Database, what: string, status: number, key: string, method: string, path: string, body?: unknown, type?: string): Promise<Sent> {
      const before = volatile(await allCounts(database));
      const r = await send(key, method, path, body, type);
      expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(status);
      expect(typeof r.body?.error?.code, what).toBe('string');
      expect(typeof r.body?.error?.message, what).toBe('string');
      expect(volatile(await allCounts(database)), `${what}: a refused request wrote rows`).toEqual(before);
      return r;
    },
    /** The operations of `file` this file never sent. */
    missing(file: 'catalog' | 'grading'): string[] {
      return Object.entries(WRITE_ROUTES)
        .filter(([op, f]) => f === file && !hit.has(op))
        .map(([op]) => op);
    },
  };
}

export const NDJSON = 'application/x-ndjson';
export const lines = (...rows: unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n');
