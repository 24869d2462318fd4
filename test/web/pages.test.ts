import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { HOSTILE_MODEL, startWebFixture, type WebFixture } from './web-fixture.ts';

/** The pages over HTTP (no browser): content, escaping, downloads, access and CSRF. */

let f: WebFixture;
beforeAll(async () => {
  f = await startWebFixture();
}, 240_000);
afterAll(async () => {
  await f?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(f.server.url + path, { headers: { accept: 'text/html', ...headers }, redirect: 'manual' });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('pages', () => {
  it('every read page answers HTML under a strict CSP with the bundled examples', async () => {
    const expectations: Record<string, string[]> = {
      '/': ['grid-examples', 'IIW-P5B', 'random arrangement', '<svg', 'Neighbour'],
      '/answers': ['farmyard-describe', 'farmyard-shifted'],
      [`/answers/${f.ids.farmyard}`]: ['Rubric items', 'What the answer said', 'Completeness', 'lexical', 'landscape (correct)'],
      [`/answers/${f.ids.shifted}`]: ['0 of 54 pieces in their true cell', '42 of 48 horizontal and 45 of 45 vertical', 'class="assembly"'],
      '/calibration': ['Each judge against the human majority', 'ann-one', 'human majority', '<svg'],
      '/describe-then-solve': ['P(A✓|P✓)', '<svg'],
      '/benchmarks': ['Orientation', 'Condition ablation', 'Median output tokens'],
    };
    for (const [path, needles] of Object.entries(expectations)) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
      const html = await r.text();
      for (const n of needles) expect(html, `${path} shows ${n}`).toContain(n);
      // No inline script anywhere: every <script> has a src.
      expect(html.match(/<script(?![^>]*\ssrc=)[^>]*>/g) ?? [], path).toEqual([]);
      expect(html, path).not.toMatch(/\sstyle="/);
    }
  });

  it('escapes model-written strings: the answer text and the model name are shown as text', async () => {
    const answer = await (await get(`/answers/${f.ids.hostile}`)).text();
    expect(answer).toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;');
    expect(answer).not.toContain('<script>window.__pwned');
    expect(answer).not.toContain('<img src=x');
    for (const path of ['/', '/benchmarks', '/answers?run=xss-run']) {
      const html = await (await get(path)).text();
      expect(html, path).not.toContain(HOSTILE_MODEL);
      expect(html, path).toContain('&lt;b&gt;evil&lt;/b&gt;-model');
    }
  });

  it('every table downloads as RFC 4180 CSV and as JSON with the same rows', async () => {
    const page = await (await get('/')).text();
    const ids = [...page.matchAll(/table=([a-z-]+)&amp;format=csv/g)].map((m) => m[1]);
    expect(ids).toEqual(expect.arrayContaining(['leaderboard', 'runs']));
    const csv = await (await get('/?table=leaderboard&format=csv')).text();
    const json = (await (await get('/?table=leaderboard&format=json')).json()) as { rows: Array<Record<string, unknown>> };
    const lines = csv.split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.length - 2).toBe(json.rows.length);
    expect(lines[0]!.split(',').slice(0, 4)).toEqual(['model', 'sizeBucket', 'descriptions', 'f1']);
    expect(json.rows.some((r) => r.model === 'random baseline')).toBe(true);
    // Downloads carry the raw data (text/csv under nosniff is never rendered as HTML).
    const answers = await get('/answers?run=xss-run&table=answers&format=csv');
    expect(answers.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(answers.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await answers.text()).toContain(',<b>evil</b>-model,');
    const detail = await (await get(`/answers/${f.ids.hostile}?table=rubric-0&format=csv`)).text();
    expect(detail.split('\r\n')[0]).toBe('item,text,weight,verdict,evidence,points');
    expect((await get('/?table=nope&format=csv')).status).toBe(404);
    // An empty table still downloads its header (one judge: no judge-against-judge pair; the seed's panel adds judges otherwise).
    expect(await (await get('/calibration?judge=lexical&table=judge-judge&format=csv')).text()).toBe('pair,n,agreement,kappa,weightedKappa\r\n');
  });

  it('annotation needs an annotate key: login redirect for browsers, 401 and 403 envelopes for clients', async () => {
    const r = await get('/annotate');
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/login?next=%2Fannotate');
    const anon = await fetch(f.server.url + '/annotate');
    expect(anon.status).toBe(401);
    expect(((await anon.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const admin = await fetch(f.server.url + '/annotate', { headers: bearer(f.keys.admin) });
    expect(admin.status).toBe(403);
    const ok = await get('/annotate', bearer(f.keys.annotate));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('Annotating as <strong>annotator-a</strong>');
  });

  it('the annotation page is blind to the judge: no verdict, evidence or score of a grade', async () => {
    const html = await (await get(`/annotate/${f.ids.farmyard}`, bearer(f.keys.annotate))).text();
    expect(html).toContain('data-kind="item"');
    expect(html).not.toMatch(/class="verdict/);
    expect(html).not.toContain('What the answer said');
    expect(html).not.toContain('Completeness');
    expect(html).not.toContain('checked');
  });

  it('login sets an HttpOnly SameSite=Strict session; saves need the CSRF token and the same origin', async () => {
    const login = await fetch(f.server.url + '/login', {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: f.server.url },
      body: new URLSearchParams({ key: f.keys.annotate2, next: '/annotate' }),
    });
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/annotate');
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const session = { cookie: cookie.split(';')[0]! };
    const page = await (await get(`/annotate/${f.ids.hostile}`, session)).text();
    const csrf = /data-csrf="([^"]+)"/.exec(page)![1]!;
    const put = (headers: Record<string, string>) =>
      fetch(`${f.server.url}/annotate/${f.ids.hostile}/labels`, { method: 'PUT', headers: { 'content-type': 'application/json', ...session, ...headers }, body: JSON.stringify({ claim: 0, label: 'true' }) });
    expect((await put({})).status).toBe(403);
    expect((await put({ 'x-csrf-token': 'wrong' })).status).toBe(403);
    expect((await put({ 'x-csrf-token': csrf, origin: 'http://evil.example' })).status).toBe(403);
    const ok = await put({ 'x-csrf-token': csrf, origin: f.server.url });
    expect(ok.status).toBe(200);
    const mine = (await (await get(`/annotate/${f.ids.hostile}/labels`, session)).json()) as { annotator: string; claims: Record<string, string> };
    expect(mine).toMatchObject({ annotator: 'annotator-b', claims: { 0: 'true' } });
    const bad = await fetch(f.server.url + '/login', { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ key: 'assay_00000000_nope' }) });
    expect(bad.status).toBe(401);
    expect((await fetch(f.server.url + '/login?next=//evil.example', { headers: { accept: 'text/html' } }).then((r) => r.text())).includes('value="/"')).toBe(true);
  });

  it('without script the form saves every choice and moves to the next answer', async () => {
    const body = new URLSearchParams({ 'item:barn': 'correct', 'item:farmer': 'partial', 'claim:1': 'false' });
    const r = await fetch(`${f.server.url}/annotate/${f.ids.unlabelled}`, { method: 'POST', redirect: 'manual', headers: { ...bearer(f.keys.annotate), 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toMatch(/^\/annotate(\/\d+)?$/);
    const mine = (await (await fetch(`${f.server.url}/annotate/${f.ids.unlabelled}/labels`, { headers: bearer(f.keys.annotate) })).json()) as Record<string, unknown>;
    expect(mine).toMatchObject({ items: { barn: 'correct', farmer: 'partial' }, claims: { 1: 'false' } });
  });
});

describe('claim marks and the API', () => {
  it("the API's calibration report leaves claim marks (item claim:<n>) out of the verdict scale", async () => {
    const put = await fetch(`${f.server.url}/annotate/${f.ids.farmyard}/labels`, {
      method: 'PUT',
      headers: { ...bearer(f.keys.annotate2), 'content-type': 'application/json' },
      body: JSON.stringify({ claim: 0, label: 'unverifiable' }),
    });
    expect(put.status).toBe(200);
    const marks = await fetch(`${f.server.url}/api/labels?annotator=annotator-b`, { headers: bearer(f.keys.read) });
    expect(((await marks.json()) as { items: Array<{ item: string }> }).items.map((l) => l.item)).toContain('claim:0');
    const r = await fetch(`${f.server.url}/api/reports/calibration?scale=verdict`, { headers: bearer(f.keys.read) });
    expect(r.status).toBe(200);
    const report = (await r.json()) as { humans: string[]; units: number };
    expect(report.humans).toEqual(expect.arrayContaining(['ann-one', 'ann-two']));
  });
});

describe('read pages off loopback', () => {
  it('need a read key (or a session) when the server is not on loopback', async () => {
    const app = createApp({ database: f.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000, host: '0.0.0.0' }, log: () => {} });
    const call = (path: string, headers: Record<string, string> = {}) => app.request(path, { headers });
    expect((await call('/', { accept: 'text/html' })).status).toBe(303);
    expect((await call('/')).status).toBe(401);
    expect((await call('/', bearer(f.keys.annotate))).status).toBe(403);
    expect((await call('/', bearer(f.keys.read))).status).toBe(200);
    expect((await call('/answers/1', bearer(f.keys.read))).status).toBe(200);
    expect((await call('/static/style.css')).status).toBe(200);
  });
});

describe('errors on pages', () => {
  it('are HTML pages for browsers and the envelope for other clients', async () => {
    const html = await get('/answers/999999');
    expect(html.status).toBe(404);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(await html.text()).toContain('answer 999999 not found');
    const json = await fetch(f.server.url + '/answers/999999');
    expect(json.status).toBe(404);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await get('/answers/abc')).status).toBe(400);
    expect((await get('/?table=leaderboard&format=xml')).status).toBe(400);
  });
});
