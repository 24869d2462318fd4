import { describe, expect, it } from 'vitest';
import { isMarkedMiddleware, scopeOf } from '../../src/api/define-route.ts';
import { grants, type RouteScope } from '../../src/api/scopes.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/** A key that lacks `scope`: the most powerful key that still does not grant it. */
const LACKING: Readonly<Record<Exclude<RouteScope, 'public'>, 'read' | 'annotate' | 'write' | 'admin'>> = {
  read: 'annotate',
  write: 'read',
  admin: 'write',
  annotate: 'admin',
};

const concrete = (path: string) => path.replaceAll(/:([A-Za-z]+)/g, (_, name: string) => (name === 'prefix' ? '0123abcd' : '1'));

describe('scope lattice', () => {
  it('admin ⊇ write ⊇ read; annotate stands apart', () => {
    expect(grants(['admin'], 'read')).toBe(true);
    expect(grants(['admin'], 'write')).toBe(true);
    expect(grants(['write'], 'admin')).toBe(false);
    expect(grants(['read'], 'write')).toBe(false);
    expect(grants(['admin'], 'annotate')).toBe(false);
    expect(grants(['annotate'], 'read')).toBe(false);
    expect(grants(['annotate', 'read'], 'read')).toBe(true);
    expect(grants([], 'public')).toBe(true);
    expect(grants(['bogus'], 'read')).toBe(false);
  });
});

describeDb('every registered route is classified and enforced', (ctx) => {
  const api = useApi(ctx);

  it('has no unclassified route', () => {
    const unclassified = api.app.routes
      .filter((r) => !(r.method === 'ALL' && isMarkedMiddleware(r.handler)))
      .filter((r) => scopeOf(api.app, r.method, r.path) === undefined)
      .map((r) => `${r.method} ${r.path}`);
    expect(unclassified).toEqual([]);
    // The walk really sees the routes (a vacuous pass is impossible).
    expect(api.app.routes.length).toBeGreaterThan(5);
  });

  it('exempts only the marked app-wide host check from the walk, never an unmarked catch-all', () => {
    // hono records app.use('*', mw) and app.all('*', h) alike ({method: 'ALL', path, handler}), so only
    // the handler's identity tells the app-wide middleware from a catch-all route: exactly one entry is
    // exempt, and it is the first thing every request meets.
    const exempt = api.app.routes.filter((r) => r.method === 'ALL' && isMarkedMiddleware(r.handler)).map((r) => `${r.method} ${r.path}`);
    expect(exempt).toEqual(['ALL /*']);
    expect(api.app.routes[0]!.method === 'ALL' && isMarkedMiddleware(api.app.routes[0]!.handler)).toBe(true);
    expect(isMarkedMiddleware(async (_c: unknown, next: () => Promise<void>) => next())).toBe(false);
  });

  it('answers 401 without a key, with an unknown key and with a revoked key, and 403 without the scope', async () => {
    const seen = new Set<string>();
    let checked = 0;
    for (const r of api.app.routes) {
      const key = `${r.method} ${r.path}`;
      if (seen.has(key) || (r.method === 'ALL' && isMarkedMiddleware(r.handler))) continue;
      seen.add(key);
      const scope = scopeOf(api.app, r.method, r.path)!;
      if (scope === 'public') continue;
      const path = concrete(r.path);
      const unknown = 'assay_00000000_' + 'A'.repeat(43);
      for (const presented of [null, unknown, api.keys.revoked, 'not-a-key']) {
        const res = await api.call(presented, r.method, path, { body: r.method === 'GET' ? undefined : {} });
        expect(res.status, `${key} with ${presented === null ? 'no key' : 'a bad key'}`).toBe(401);
        const body = (await res.json()) as { error: { code: string } };
        expect(body.error.code).toBe('unauthorized');
      }
      const res = await api.call(api.keys[LACKING[scope]], r.method, path, { body: r.method === 'GET' ? undefined : {} });
      expect(res.status, `${key} with a ${LACKING[scope]} key`).toBe(403);
      expect(((await res.json()) as { error: { code: string; message: string } }).error.message).toContain(`'${scope}'`);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('serves the public routes without a key', async () => {
    expect((await api.call(null, 'GET', '/health')).status).toBe(200);
    const spec = (await (await api.call(null, 'GET', '/openapi.json')).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(spec.openapi).toBe('3.1.0');
    expect(Object.keys(spec.paths)).toContain('/api/keys');
    const docs = await api.call(null, 'GET', '/docs');
    const html = await docs.text();
    expect(html).toContain('/docs/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    const bundle = await api.call(null, 'GET', '/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    expect((await api.call(null, 'GET', '/docs/..%2Fpackage.json')).status).toBe(404);
  });

  it('serves /docs under a strict CSP with no inline script, and Swagger UI never persists the key', async () => {
    const docs = await api.call(null, 'GET', '/docs');
    const csp = docs.headers.get('content-security-policy') ?? '';
    const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
    expect(docs.headers.get('cache-control')).toBe('no-store');
    // Every script of the page is a file of this origin: nothing inline, no event-handler attributes.
    const html = await docs.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => /src="([^"]+)"/.exec(m[1]!)?.[1])).toEqual(['/docs/swagger-ui-bundle.js', '/docs/init.js']);
    expect(scripts.every((m) => m[2]!.trim() === '')).toBe(true);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    const init = await api.call(null, 'GET', '/docs/init.js');
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toContain('javascript');
    const code = (await init.text()).replace(/\/\/.*$/gm, ''); // the code, not its comments
    expect(code).toMatch(/persistAuthorization:\s*false/);
    expect(code).toMatch(/queryConfigEnabled:\s*false/);
    expect(code).not.toMatch(/localStorage|sessionStorage|document\.cookie|persistAuthorization:\s*true/);
  });
});

describe('internal errors', () => {
  it('answer 500 with the envelope, no stack, and log method and path without the key', async () => {
    const { createApp } = await import('../../src/app.ts');
    const lines: string[] = [];
    const key = 'assay_0123abcd_' + 'S'.repeat(43);
    const app = createApp({
      database: { kind: 'pglite' } as never,
      config: { bodyLimitBytes: 1000, rateLimitPerMinute: 100 },
      verifyKey: async () => {
        throw new Error('database exploded at secret.ts:12');
      },
      log: (l) => lines.push(l),
    });
    const res = await app.request('/api/runs', { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'internal', message: 'internal error' } });
    expect(lines.join('\n')).toContain('internal error on GET /api/runs');
    expect(lines.join('\n')).not.toContain(key);
  });
});
