import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { startWebFixture, type WebFixture } from './web-fixture.ts';

/**
 * Behind a TLS-terminating proxy the browser is on https://assay.example.org while the server sees
 * http://assay.example.org (the proxy forwards the Host). With ASSAY_PUBLIC_ORIGIN set that origin is
 * the server's own: session writes through the proxy work, a foreign origin is still refused.
 */

const PUBLIC = 'https://assay.example.org';
const SEEN = 'http://assay.example.org';

describe('ASSAY_PUBLIC_ORIGIN', () => {
  it('accepts an origin and nothing else', () => {
    const base = { DATABASE_URL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
    expect(loadConfig({ ...base, ASSAY_PUBLIC_ORIGIN: 'https://assay.example.org/' }).publicOrigin).toBe(PUBLIC);
    expect(loadConfig({ ...base, ASSAY_PUBLIC_ORIGIN: 'https://Assay.Example.org:8443' }).publicOrigin).toBe('https://assay.example.org:8443');
    expect(loadConfig({ ...base, ASSAY_PUBLIC_ORIGIN: '' }).publicOrigin).toBeUndefined();
    for (const bad of ['assay.example.org', 'https://assay.example.org/assay', 'https://u:p@assay.example.org', 'ftp://assay.example.org', 'https://assay.example.org?x=1']) {
      expect(() => loadConfig({ ...base, ASSAY_PUBLIC_ORIGIN: bad }), bad).toThrow(/ASSAY_PUBLIC_ORIGIN: .* is not an origin/);
    }
  });
});

describe('session writes through a TLS-terminating proxy', () => {
  let f: WebFixture;
  const config = { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 };
  beforeAll(async () => {
    f = await startWebFixture();
  }, 240_000);
  afterAll(async () => {
    await f?.close();
  });

  async function session(app: ReturnType<typeof createApp>): Promise<{ cookie: string; secure: boolean; csrf: string }> {
    const login = await app.request(`${SEEN}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC },
      body: new URLSearchParams({ key: f.keys.annotate, next: '/annotate' }).toString(),
    });
    expect(login.status).toBe(303);
    const setCookie = login.headers.get('set-cookie')!;
    const cookie = setCookie.split(';')[0]!;
    const page = await (await app.request(`${SEEN}/annotate/${f.ids.hostile}`, { headers: { cookie, accept: 'text/html' } })).text();
    return { cookie, secure: /;\s*Secure/i.test(setCookie), csrf: /data-csrf="([^"]+)"/.exec(page)![1]! };
  }

  const label = (app: ReturnType<typeof createApp>, s: { cookie: string; csrf: string }, origin: string) =>
    app.request(`${SEEN}/annotate/${f.ids.hostile}/labels`, {
      method: 'PUT',
      headers: { cookie: s.cookie, origin, 'x-csrf-token': s.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ item: 'barn', label: 'partial' }),
    });

  it('without it the proxy host is refused (the defect: users could not work through a proxy)', async () => {
    const app = createApp({ database: f.database, config: { ...config, allowedHosts: ['assay.example.org'] }, log: () => {} });
    const login = await app.request(`${SEEN}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC },
      body: new URLSearchParams({ key: f.keys.annotate, next: '/annotate' }).toString(),
    });
    expect(login.status).toBe(403);
  });

  it('with it a session is made with a Secure cookie and a label saved; a foreign origin is still refused', async () => {
    const app = createApp({ database: f.database, config: { ...config, publicOrigin: PUBLIC }, log: () => {} });
    const s = await session(app);
    expect(s.secure).toBe(true);
    const saved = await label(app, s, PUBLIC);
    expect(saved.status, await saved.clone().text()).toBe(200);
    const stored = await f.database.execute(`select label from labels where answer_id = $1 and item_key = 'barn'`, [f.ids.hostile]);
    expect(stored.rows.map((r) => r.label)).toEqual(['partial']);
    for (const origin of ['https://evil.example', SEEN.replace('http:', 'https:') + ':444', 'http://assay.example.org:8443']) {
      expect((await label(app, s, origin)).status, origin).toBe(403);
    }
  });
});
