import { OpenAPIHono } from '@hono/zod-openapi';
import type { Handler } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { guard } from '../../src/api/auth.ts';
import type { AppEnv, Caller } from '../../src/api/context.ts';
import { routeRegistry, type Api } from '../../src/api/define-route.ts';
import { onError } from '../../src/api/errors.ts';
import { FixedWindowLimiter } from '../../src/api/rate-limit.ts';
import { pageGuard, type PageAuth } from '../../src/web/guard.ts';
import { SESSION_COOKIE, SessionStore } from '../../src/web/session.ts';
import { startWebFixture, type WebFixture } from './web-fixture.ts';

/**
 * CSRF on cookie sessions (issue 11, finding 5): every unsafe method on a session needs the token and
 * a same-origin Origin (or Referer when there is no Origin), whatever the Content-Type; bearer
 * requests need neither. First the guard alone on a toy app, then every unsafe route of the real app.
 */

const SELF = 'http://localhost';
const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
const KEY = 'assay_0123abcd_' + 'K'.repeat(43);
const CALLER: Caller = { keyId: 1, prefix: '0123abcd', name: 'annotator-x', scopes: ['annotate'] };

/** Content types a browser (or an attacker's form) can send, and the body each would carry. */
const BODIES: Array<{ type: string | undefined; body: (token?: string) => string }> = [
  { type: 'application/json', body: (t) => JSON.stringify({ item: 'barn', label: 'correct', ...(t ? { _csrf: t } : {}) }) },
  // The original hole: "form" in the type skipped the check although the body was JSON.
  { type: 'application/x-www-form-urlencoded', body: () => JSON.stringify({ item: 'barn', label: 'correct' }) },
  { type: 'application/x-www-form-urlencoded; charset=UTF-8', body: () => 'item%3Abarn=correct' },
  { type: 'text/plain', body: (t) => `item:barn=correct${t ? `&_csrf=${t}` : ''}` },
  { type: 'text/plain; x=form', body: () => '{"item":"barn","label":"correct"}' },
  { type: 'application/json; profile=form', body: () => '{"item":"barn","label":"correct"}' },
  { type: undefined, body: () => '{"item":"barn","label":"correct"}' },
];

function toyApp() {
  const app = new OpenAPIHono<AppEnv>();
  const sessions = new SessionStore();
  const auth: PageAuth = { sessions, verifyKey: async (k) => (k === KEY ? CALLER : null) };
  const api: Api = {
    app,
    deps: { database: null as never, config: { bodyLimitBytes: 10_000, rateLimitPerMinute: 1000 } },
    guard: guard({ verifyKey: auth.verifyKey, limiter: new FixedWindowLimiter(1000, 60_000), bodyLimitBytes: 10_000 }),
  };
  const hits: string[] = [];
  app.onError((err, c) => onError(err, c, () => {}));
  const handler: Handler<AppEnv> = async (c) => {
    hits.push(`${c.req.method} ${c.get('caller').name}`);
    return c.json({ ok: true });
  };
  const [pageMw] = pageGuard(api, auth, 'annotate');
  for (const method of ['GET', ...METHODS]) app.on(method, '/thing', pageMw!, handler);
  const session = sessions.create(KEY);
  return { app, session, hits, cookie: `${SESSION_COOKIE}=${session.id}` };
}

describe('the page guard on a cookie session', () => {
  const t = toyApp();
  const send = (method: string, headers: Record<string, string | undefined>, body?: string) => {
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) h[k] = v;
    return t.app.request('/thing', { method, headers: h, body });
  };

  it('refuses every unsafe method without the token or from another origin, whatever the Content-Type', async () => {
    const csrf = t.session.csrf;
    const refusals: Array<[string, Record<string, string | undefined>]> = [
      ['foreign Origin, no token', { origin: 'http://evil.example' }],
      ['foreign Origin, right token', { origin: 'http://evil.example', 'x-csrf-token': csrf }],
      ['same host on another port', { origin: 'http://localhost:8080', 'x-csrf-token': csrf }],
      ['Origin: null, right token', { origin: 'null', 'x-csrf-token': csrf }],
      ['neither Origin nor Referer, right token', { 'x-csrf-token': csrf }],
      ['foreign Referer, no Origin, right token', { referer: 'http://evil.example/page', 'x-csrf-token': csrf }],
      ['garbage Referer, right token', { referer: 'not a url', 'x-csrf-token': csrf }],
      ['same Origin, no token', { origin: SELF }],
      ['same Origin, wrong token', { origin: SELF, 'x-csrf-token': csrf.slice(0, -1) + (csrf.endsWith('A') ? 'B' : 'A') }],
      ['same Origin, empty token', { origin: SELF, 'x-csrf-token': '' }],
      ['foreign Origin beats a same-origin Referer', { origin: 'http://evil.example', referer: `${SELF}/annotate`, 'x-csrf-token': csrf }],
    ];
    let checked = 0;
    for (const method of METHODS) {
      for (const b of BODIES) {
        for (const [what, headers] of refusals) {
          const res = await send(method, { cookie: t.cookie, 'content-type': b.type, ...headers }, b.body());
          expect(res.status, `${method} ${b.type ?? '(no type)'}: ${what}`).toBe(403);
          expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
          checked++;
        }
        // A token inside a body that is not a form does not count (only X-CSRF-Token or a form's _csrf).
        if (b.type !== 'application/x-www-form-urlencoded' && b.type !== 'application/x-www-form-urlencoded; charset=UTF-8') {
          const res = await send(method, { cookie: t.cookie, 'content-type': b.type, origin: SELF }, b.body(csrf));
          expect(res.status, `${method} ${b.type ?? '(no type)'}: token in a non-form body`).toBe(403);
        }
      }
    }
    expect(checked).toBe(METHODS.length * BODIES.length * refusals.length);
    expect(t.hits).toEqual([]);
  });

  it('lets through the same origin with the token: header, form field, or a same-origin Referer', async () => {
    t.hits.length = 0;
    const csrf = t.session.csrf;
    for (const method of METHODS) {
      for (const b of BODIES) {
        expect((await send(method, { cookie: t.cookie, 'content-type': b.type, origin: SELF, 'x-csrf-token': csrf }, b.body())).status, `${method} ${b.type}`).toBe(200);
      }
      expect((await send(method, { cookie: t.cookie, 'content-type': 'application/json', referer: `${SELF}/annotate/1`, 'x-csrf-token': csrf }, '{}')).status).toBe(200);
      const form = new URLSearchParams({ 'item:barn': 'correct', _csrf: csrf });
      expect((await send(method, { cookie: t.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: SELF }, form.toString())).status).toBe(200);
      const multipart = new FormData();
      multipart.set('_csrf', csrf);
      // Request sets the multipart boundary itself.
      expect((await t.app.request('/thing', { method, headers: { cookie: t.cookie, origin: SELF }, body: multipart })).status).toBe(200);
    }
    expect(t.hits).toHaveLength(METHODS.length * (BODIES.length + 3));
  });

  it('needs no token for a bearer key (not cookie-authenticated) nor for a safe method', async () => {
    t.hits.length = 0;
    for (const method of METHODS) {
      const res = await send(method, { authorization: `Bearer ${KEY}`, origin: 'http://evil.example', 'content-type': 'application/json' }, '{}');
      expect(res.status, method).toBe(200);
    }
    expect((await send('GET', { cookie: t.cookie, origin: 'http://evil.example' })).status).toBe(200);
    expect(t.hits).toEqual([...METHODS.map((m) => `${m} annotator-x`), 'GET annotator-x']);
  });
});

describe('every unsafe route of the app that accepts a session cookie', () => {
  let f: WebFixture;
  let app: ReturnType<typeof createApp>;
  let cookie: string;
  let csrf: string;
  beforeAll(async () => {
    f = await startWebFixture();
    app = createApp({ database: f.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    const login = await app.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: SELF },
      body: new URLSearchParams({ key: f.keys.annotate, next: '/annotate' }).toString(),
    });
    expect(login.status).toBe(303);
    cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const page = await (await app.request(`/annotate/${f.ids.hostile}`, { headers: { cookie, accept: 'text/html' } })).text();
    csrf = /data-csrf="([^"]+)"/.exec(page)![1]!;
  }, 240_000);
  afterAll(async () => {
    await f?.close();
  });

  const labels = async () => JSON.stringify((await f.database.execute('select * from labels order by id')).rows);

  it('the reported case: PUT /annotate/:id/labels as a form type with a JSON body, no token, foreign Origin saves nothing', async () => {
    const before = await labels();
    const res = await app.request(`/annotate/${f.ids.hostile}/labels`, {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
      body: JSON.stringify({ item: 'barn', label: 'incorrect' }),
    });
    expect(res.status).toBe(403);
    expect(await labels()).toBe(before);
  });

  it('refuses each of them without the token or cross-origin, and nothing changes', async () => {
    const unsafe = [...routeRegistry(app).values()].filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method));
    // The session routes: every page route behind a scope, and logout (which ends a session).
    const sessionRoutes = unsafe.filter((r) => !r.path.startsWith('/api/') && (r.scope !== 'public' || r.path === '/logout'));
    expect(sessionRoutes.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /annotate/:id', 'PUT /annotate/:id/labels', 'POST /logout']));
    const before = await labels();
    const body = { 'item:barn': 'incorrect', 'claim:0': 'false' };
    for (const r of sessionRoutes) {
      const path = r.path.replaceAll(/:[A-Za-z]+/g, String(f.ids.hostile));
      for (const b of BODIES) {
        const variants: Array<Record<string, string>> = [{ origin: 'http://evil.example' }, { origin: 'http://evil.example', 'x-csrf-token': csrf }, { 'x-csrf-token': csrf }, { origin: SELF }];
        for (const headers of variants) {
          const res = await app.request(path, { method: r.method, headers: { cookie, ...(b.type ? { 'content-type': b.type } : {}), ...headers }, body: b.body() });
          expect(res.status, `${r.method} ${path} ${b.type} ${JSON.stringify(headers)}`).toBe(403);
        }
      }
      const form = await app.request(path, { method: r.method, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' }, body: new URLSearchParams({ ...body, _csrf: csrf }).toString() });
      expect(form.status, `${r.method} ${path}: a foreign form with the right token`).toBe(403);
    }
    expect(await labels()).toBe(before);
    // Logout was refused too: the session still works.
    expect((await app.request('/annotate', { headers: { cookie } })).status).toBe(200);
  });

  it('reads a form token only under the body limit: an oversized form is a 413', async () => {
    const big = new URLSearchParams({ _csrf: csrf, pad: 'x'.repeat(1 << 20) }).toString();
    const res = await app.request(`/annotate/${f.ids.hostile}`, { method: 'POST', headers: { cookie, origin: SELF, 'content-type': 'application/x-www-form-urlencoded' }, body: big });
    expect(res.status).toBe(413);
  });

  it('the API takes no session cookie: every unsafe /api route answers 401 to a cookie with the token', async () => {
    const api = [...routeRegistry(app).values()].filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && r.path.startsWith('/api/'));
    expect(api.length).toBeGreaterThan(3);
    for (const r of api) {
      const path = r.path.replaceAll(/:[A-Za-z]+/g, (m) => (m === ':prefix' ? '0123abcd' : '1'));
      const res = await app.request(path, { method: r.method, headers: { cookie, origin: SELF, 'x-csrf-token': csrf, 'content-type': 'application/json' }, body: '{}' });
      expect(res.status, `${r.method} ${r.path}`).toBe(401);
    }
  });

  it('saves with the token from this origin (script and plain form), and a bearer key needs no token', async () => {
    const put = await app.request(`/annotate/${f.ids.hostile}/labels`, {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/json', origin: SELF, 'x-csrf-token': csrf },
      body: JSON.stringify({ claim: 0, label: 'true' }),
    });
    expect(put.status).toBe(200);
    const post = await app.request(`/annotate/${f.ids.hostile}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: SELF },
      body: new URLSearchParams({ 'item:barn': 'partial', _csrf: csrf }).toString(),
    });
    expect(post.status).toBe(303);
    // (The hostile answer is one sentence: "… barn. <script>…" continues it, as ICU reads a lowercase word.)
    const mine = (await (await app.request(`/annotate/${f.ids.hostile}/labels`, { headers: { cookie } })).json()) as { claims: Record<string, string>; items: Record<string, string> };
    expect(mine.claims).toMatchObject({ 0: 'true' });
    expect(mine.items).toMatchObject({ barn: 'partial' });
    const viaKey = await app.request(`/annotate/${f.ids.hostile}/labels`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${f.keys.annotate2}`, 'content-type': 'application/json' },
      body: JSON.stringify({ claim: 0, label: 'false' }),
    });
    expect(viaKey.status).toBe(200);
    const logout = await app.request('/logout', { method: 'POST', headers: { cookie, origin: SELF, 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${csrf}` });
    expect(logout.status).toBe(303);
    expect((await app.request('/annotate', { headers: { cookie } })).status).toBe(401);
  });
});
