import { describe, expect, it } from 'vitest';
import { createApi } from '../src/api/app.ts';
import { scopeOf } from '../src/api/define-route.ts';
import { createApp } from '../src/app.ts';

/**
 * The composition root: src/app.ts mounts the web pages on the API's app (api/ never imports web/).
 * Every test app is built with createApp, so the route-security walk covers the pages too; this test
 * fails if the pages ever stop being mounted there.
 */
const deps = { database: { kind: 'pglite' } as never, config: { bodyLimitBytes: 1000, rateLimitPerMinute: 100 }, log: () => {} };
const routesOf = (app: { routes: { method: string; path: string }[] }) => new Set(app.routes.map((r) => `${r.method} ${r.path}`));

describe('createApp (src/app.ts)', () => {
  it('serves the API and the pages, each page classified with its scope', () => {
    const app = createApp(deps);
    const routes = routesOf(app);
    expect(routes.has('GET /api/runs')).toBe(true);
    expect(routes.has('GET /login')).toBe(true);
    expect(scopeOf(app, 'GET', '/login')).toBe('public');
    expect(scopeOf(app, 'GET', '/annotate')).toBe('annotate');
  });

  it('is the API alone without the web front: createApi mounts no page', () => {
    const routes = routesOf(createApi(deps));
    expect(routes.has('GET /api/runs')).toBe(true);
    expect(routes.has('GET /login')).toBe(false);
    expect(routes.has('GET /annotate')).toBe(false);
  });
});
