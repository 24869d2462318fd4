import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { routeRegistry } from '../../src/api/define-route.ts';
import type { Database } from '../../src/db/client.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { createKey } from '../../src/services/keys.ts';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';

/**
 * Issue 11 acceptance: the bad-input corpus (test/fixtures/bad-input/http.json) replayed against the real
 * Node server (listen() from src/server.ts) on every engine. Every entry must get its expected 4xx with
 * the JSON envelope, never a 5xx, and leave every table exactly as it was (row counts and content).
 * The corpus must cover every write route and form the app registers, so a new route fails here until
 * it has bad-input cases.
 */

interface Entry {
  route: string;
  path: string;
  kind: string;
  what: string;
  auth: 'admin' | 'write' | 'annotate' | 'read' | 'none';
  type?: string;
  headers?: Record<string, string>;
  body?: string;
  raw?: string;
  expect: number;
}

const CORPUS: Entry[] = JSON.parse(readFileSync(new URL('../fixtures/bad-input/http.json', import.meta.url), 'utf8'));
const BODY_LIMIT = 1_000_000;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KINDS = ['nul', 'utf8', 'long', 'int', 'id', 'deep', 'type', 'missing', 'framing', 'size', 'content-type'];
const CODE_OF: Record<number, string> = { 400: 'bad_input', 403: 'forbidden', 404: 'not_found', 413: 'payload_too_large', 415: 'bad_input', 431: 'bad_input' };

interface Vars {
  answerId: number;
  host: string;
  keys: Record<string, string>;
}

/** Expands the corpus macros into bytes: {{repeat:N:s}}, {{deep:N}}, {{deepobj:N}}, {{hex:ff fe}}, {{answerId}}, {{host}}, {{key:scope}}. */
function expand(text: string, v: Vars): Buffer {
  const parts: Buffer[] = [];
  let last = 0;
  for (const m of text.matchAll(/\{\{([a-zA-Z]+)(?::([^}:]*))?(?::([^}]*))?\}\}/g)) {
    parts.push(Buffer.from(text.slice(last, m.index), 'utf8'));
    const [, name, a, b] = m;
    if (name === 'repeat') parts.push(Buffer.from(b!.repeat(Number(a)), 'utf8'));
    else if (name === 'deep') parts.push(Buffer.from('['.repeat(Number(a)) + ']'.repeat(Number(a))));
    else if (name === 'deepobj') parts.push(Buffer.from('{"a":'.repeat(Number(a)) + '1' + '}'.repeat(Number(a))));
    else if (name === 'hex') parts.push(Buffer.from(a!.split(' ').map((h) => parseInt(h, 16))));
    else if (name === 'answerId') parts.push(Buffer.from(String(v.answerId)));
    else if (name === 'host') parts.push(Buffer.from(v.host));
    else if (name === 'key') parts.push(Buffer.from(v.keys[a!]!));
    else throw new Error(`unknown macro ${m[0]}`);
    last = m.index! + m[0].length;
  }
  parts.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(parts);
}

interface Reply {
  status: number;
  type: string;
  body: string;
}

function send(url: string, e: Entry, v: Vars): Promise<Reply> {
  const path = expand(e.path, v).toString('latin1');
  const body = e.body === undefined ? undefined : expand(e.body, v);
  const headers: Record<string, string> = { ...e.headers };
  if (e.auth !== 'none') headers.authorization = `Bearer ${v.keys[e.auth]}`;
  if (e.type) headers['content-type'] = e.type;
  if (body) headers['content-length'] = String(body.length);
  const [method] = e.route.split(' ');
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers, agent: false });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: text }));
    });
    // The server may answer (413) and close before a large upload ends; the response is what counts.
    req.on('error', (err) => (['EPIPE', 'ECONNRESET'].includes((err as NodeJS.ErrnoException).code ?? '') ? undefined : reject(err)));
    req.end(body);
  });
}

/** Raw bytes over TCP, for framing Node's client would refuse to send; reads one response. */
function sendRaw(port: number, e: Entry, v: Vars): Promise<Reply> {
  const bytes = expand(e.raw!, v);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error(`no complete response within 10 s: ${JSON.stringify(got.toString('latin1').slice(0, 200))}`)), 10_000);
    const finish = (err?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) return reject(err);
      const text = got.toString('utf8');
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), type: /content-type: *([^\r\n]*)/i.exec(head)?.[1] ?? '', body: bodyOf(text)! });
    };
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (bodyOf(got.toString('utf8')) !== null) finish();
    });
    socket.on('error', () => {});
    socket.on('close', () => (bodyOf(got.toString('utf8')) !== null ? finish() : finish(new Error(`closed without a complete response: ${JSON.stringify(got.toString('latin1').slice(0, 200))}`))));
  });
}

/** The body once complete (Content-Length or chunked), else null. */
function bodyOf(text: string): string | null {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = text.slice(0, end);
  const rest = text.slice(end + 4);
  const length = /content-length: *(\d+)/i.exec(head);
  if (length) return Buffer.byteLength(rest) >= Number(length[1]) ? rest : null;
  if (/transfer-encoding: *chunked/i.test(head)) {
    if (!rest.includes('\r\n0\r\n\r\n') && !rest.startsWith('0\r\n\r\n')) return null;
    let out = '';
    let s = rest;
    for (;;) {
      const nl = s.indexOf('\r\n');
      const n = parseInt(s.slice(0, nl), 16);
      if (!n) return out;
      out += s.slice(nl + 2, nl + 2 + n);
      s = s.slice(nl + 4 + n);
    }
  }
  return rest;
}

/** Count and content of every table (api_keys without last_used_at, which authentication refreshes). */
async function fingerprint(database: Database): Promise<Record<string, string>> {
  const tables = (await database.execute(`select tablename from pg_tables where schemaname = 'public' order by tablename`)).rows.map((r) => String(r.tablename));
  const pgboss = (await database.execute(`select 1 from pg_tables where schemaname = 'pgboss' and tablename = 'job'`)).rows.length > 0;
  const source = (t: string) => (t === 'api_keys' ? '(select id, name, prefix, hash, scopes, created_at, revoked_at from api_keys)' : `"${t}"`);
  const all = [...tables.map((t) => [t, source(t)] as const), ...(pgboss ? [['pgboss.job', 'pgboss.job'] as const] : [])];
  const sql = `select ${all.map(([name, src], i) => `(select count(*) || ':' || coalesce(md5(string_agg(x::text, '|' order by x::text)), '') from ${src} x) as t${i}`).join(', ')}`;
  const row = (await database.execute(sql)).rows[0]!;
  return Object.fromEntries(all.map(([name], i) => [name, String(row[`t${i}`])]));
}

const RUBRIC = { id: 'farm', title: 'Farm', reference: 'A red barn behind a white fence.', items: [{ id: 'barn', text: 'a red barn', weight: 2 }, { id: 'fence', text: 'a white fence', weight: 1 }] };
const PUZZLE = JSON.stringify({ id: 'p4', rows: 2, cols: 2, layout: [['a', 'b'], ['c', 'd']], rubric: 'farm' });
const ANSWERS = [
  { id: 'd1', task: 'describe', rubric: 'farm', text: 'The barn is red. The fence is white.' },
  { id: 'a1', task: 'assemble', puzzle: 'p4', text: 'a b\nc d' },
].map((r) => JSON.stringify(r)).join('\n');

/** "/annotate/:id/labels" → a regex for concrete paths (query strings ignored). */
const routePattern = (path: string) => new RegExp(`^${path.replaceAll(/:[A-Za-z]+/g, '[^/]+')}$`);

describe('the bad-input corpus', () => {
  it('holds at least 150 requests of every kind the issue names', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(150);
    const kinds = new Set(CORPUS.map((e) => e.kind));
    expect([...kinds].sort()).toEqual([...KINDS].sort());
    for (const e of CORPUS) {
      expect(e.expect, e.what).toBeGreaterThanOrEqual(400);
      expect(e.expect, e.what).toBeLessThan(500);
    }
  });
});

describeDb('bad input against the real server', (ctx) => {
  let server: RunningServer;
  let logs: string[];
  let registered: Array<{ method: string; path: string }>;
  const vars: Vars = { answerId: 0, host: '', keys: {} };

  beforeAll(async () => {
    logs = [];
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: BODY_LIMIT, rateLimitPerMinute: 1_000_000, host: '127.0.0.1' }, log: (l) => logs.push(l) });
    registered = [...routeRegistry(app).values()];
    server = await listen(app.fetch, '127.0.0.1', 0);
    vars.host = `127.0.0.1:${server.port}`;
    for (const s of ['read', 'write', 'admin', 'annotate'] as const) vars.keys[s] = (await createKey(ctx.database, { scopes: [s], name: `corpus ${s}` })).key;
    await importParsedRubrics(ctx.database, [RUBRIC]);
    await importPuzzles(ctx.database, [{ path: 'p.jsonl', content: PUZZLE }]);
    const r = await importAnswersJsonl(ctx.database, { path: 'a.jsonl', content: ANSWERS }, { run: 'r1', model: 'm1' });
    vars.answerId = r.answerIds[0]!;
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('covers every write route and form the app registers, and names only real routes', () => {
    const writes = registered.filter((r) => WRITE_METHODS.has(r.method)).map((r) => `${r.method} ${r.path}`);
    expect(writes.length).toBeGreaterThanOrEqual(16);
    const byRoute = new Map<string, number>();
    for (const e of CORPUS) byRoute.set(e.route, (byRoute.get(e.route) ?? 0) + 1);
    const thin = writes.filter((w) => (byRoute.get(w) ?? 0) < 3);
    expect(thin, 'write routes with fewer than 3 bad-input cases in test/fixtures/bad-input/http.json').toEqual([]);
    const known = new Set(registered.map((r) => `${r.method} ${r.path}`));
    for (const e of CORPUS) {
      expect(known.has(e.route), `${e.route} (${e.what}) is not a registered route`).toBe(true);
      const concrete = expand(e.path, vars).toString('latin1').split('?')[0]!;
      expect(routePattern(e.route.split(' ')[1]!).test(concrete), `${e.path} does not match ${e.route}`).toBe(true);
    }
  });

  it('answers every entry with its 4xx and the JSON envelope, and changes no row', async () => {
    const before = await rowCounts(ctx.database);
    const failures: string[] = [];
    for (const e of CORPUS) {
      const prints = await fingerprint(ctx.database);
      const r = e.raw ? await sendRaw(server.port, e, vars) : await send(server.url, e, vars);
      const label = `${e.route} — ${e.what}`;
      let envelope: { error?: { code?: unknown; message?: unknown } } | null = null;
      try {
        envelope = JSON.parse(r.body);
      } catch {
        envelope = null;
      }
      if (r.status !== e.expect) failures.push(`${label}: status ${r.status}, expected ${e.expect}: ${r.body.slice(0, 200)}`);
      else if (!/^application\/json/.test(r.type)) failures.push(`${label}: Content-Type ${r.type}, expected JSON`);
      else if (envelope?.error?.code !== CODE_OF[e.expect] || typeof envelope?.error?.message !== 'string' || envelope.error.message === '') {
        failures.push(`${label}: not the envelope with code ${CODE_OF[e.expect]}: ${r.body.slice(0, 200)}`);
      }
      const after = await fingerprint(ctx.database);
      const changed = Object.keys(after).filter((t) => after[t] !== prints[t]);
      if (changed.length) failures.push(`${label}: changed ${changed.join(', ')}`);
    }
    expect(failures).toEqual([]);
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(logs.filter((l) => /internal error/.test(l))).toEqual([]);
  }, 300_000);

  it('still serves good requests on the same server (the corpus is refused for its content, not wholesale)', async () => {
    const ok = await send(server.url, { route: 'POST /api/annotations', path: '/api/annotations', kind: 'ok', what: 'good', auth: 'annotate', type: 'application/json', body: `{"answerId":${vars.answerId},"item":"barn","label":"correct"}`, expect: 200 }, vars);
    expect(ok.status, ok.body).toBe(200);
    const key = await send(server.url, { route: 'POST /api/keys', path: '/api/keys', kind: 'ok', what: 'good', auth: 'admin', type: 'application/json', body: '{"scopes":["read"],"name":"ok"}', expect: 201 }, vars);
    expect(key.status, key.body).toBe(201);
  });

  it('answers out-of-range ids in API and page paths with a 4xx, never a 500', async () => {
    const get = (path: string, auth: Entry['auth'], accept?: string) =>
      send(server.url, { route: `GET ${path}`, path, kind: 'id', what: path, auth, expect: 400, ...(accept ? { headers: { accept } } : {}) }, vars);
    for (const [path, auth] of [
      ['/api/answers/3000000000', 'read'],
      ['/api/assemblies/3000000000', 'read'],
      ['/answers/3000000000', 'none'],
      ['/annotate/3000000000', 'annotate'],
      ['/annotate/3000000000/labels', 'annotate'],
      ['/api/answers/1e3', 'read'],
      ['/api/answers?run=%00', 'read'],
      ['/answers?run=%00', 'none'],
      ['/api/runs/a%00b', 'read'],
    ] as const) {
      const r = await get(path, auth);
      expect(r.status, `${path}: ${r.body}`).toBe(400);
      expect(JSON.parse(r.body).error.code).toBe('bad_input');
    }
    const page = await get('/answers/3000000000', 'none', 'text/html');
    expect(page.status).toBe(400);
    expect(page.type).toMatch(/^text\/html/);
    expect(page.body).toContain('must be a whole number from 1 to 2147483647');
  });
});
