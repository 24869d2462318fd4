import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { createKey } from '../../src/services/keys.ts';
import { safeNext } from '../../src/web/pages/login.tsx';
import { describeDb } from '../helpers/db.ts';

/**
 * The open redirect of /login?next= (issue 11, finding 5): `/login?next=%2F%09%2Fevil.example` sent
 * the browser to `/\t/evil.example`, which browsers read as //evil.example. Only paths on this origin
 * may come out; everything else becomes '/'.
 */

/** Values of `next` as the handler sees them (already percent-decoded once by the query parser). */
const HOSTILE = [
  '//evil.example',
  '///evil.example',
  '////evil.example/',
  '/\\evil.example',
  '\\\\evil.example',
  '\\/evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '/ /evil.example',
  '/\u00a0/evil.example',
  '/\u200b/evil.example',
  '/\u2028/evil.example',
  '/\u0000/evil.example',
  '\t//evil.example',
  ' /ok',
  '/ok ',
  'https://evil.example',
  'HTTPS://evil.example/annotate',
  'http:evil.example',
  'https:/evil.example',
  '//evil.example@localhost',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'evil.example',
  '.evil.example',
  '',
  '?next=/x',
  '#/x',
  '/./\\evil.example',
  '/.//evil.example',
  '/a/..//evil.example',
  '/%2e%2e//evil.example',
  '/x/%2E%2E//evil.example',
  '/' + 'a'.repeat(3000),
];

/** Safe values and what comes out (the parser's serialisation: ASCII, fit for a Location header). */
const SAFE: Array<[string, string]> = [
  ['/', '/'],
  ['/annotate', '/annotate'],
  ['/annotate/12?from=queue#item-3', '/annotate/12?from=queue#item-3'],
  ['/answers?run=a%2Fb', '/answers?run=a%2Fb'],
  // Encoded slashes and backslashes stay encoded: a path segment, not a new authority.
  ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ['/%5Cevil.example', '/%5Cevil.example'],
  ['/%09/evil.example', '/%09/evil.example'],
  ['/a/../annotate', '/annotate'],
  ['/caf\u00e9', '/caf%C3%A9'],
];

describe('safeNext', () => {
  it.each(HOSTILE.map((v) => [JSON.stringify(v), v]))('sends %s to /', (_, value) => {
    expect(safeNext(value)).toBe('/');
  });

  it.each(SAFE)('keeps the same-origin path %j as %j', (value, out) => {
    expect(safeNext(value)).toBe(out);
  });

  it('anything but a string is /', () => {
    for (const v of [undefined, null, 42, ['/annotate'], { toString: () => '/annotate' }]) expect(safeNext(v)).toBe('/');
  });
});

describeDb('login redirects', (ctx) => {
  let app: ReturnType<typeof createApp>;
  let key: string;
  beforeAll(async () => {
    app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    key = (await createKey(ctx.database, { scopes: ['annotate'], name: 'redirected' })).key;
  });

  const login = (next: string) =>
    app.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
      body: new URLSearchParams({ key, next }).toString(),
    });

  it('the reported case: ?next=%2F%09%2Fevil.example leads to /', async () => {
    const form = await (await app.request('/login?next=%2F%09%2Fevil.example', { headers: { accept: 'text/html' } })).text();
    expect(form).toContain('name="next" value="/"');
    const r = await login('/\t/evil.example');
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/');
  });

  it('every hostile value, raw and percent-encoded in the query, ends at /', async () => {
    for (const value of HOSTILE) {
      // A NUL may already be refused at the edge as bad input (400): that is no redirect either.
      const refusedAtEdge = (status: number) => value.includes('\u0000') && status === 400;
      const r = await login(value);
      if (!refusedAtEdge(r.status)) {
        expect(r.status, JSON.stringify(value)).toBe(303);
        expect(r.headers.get('location'), JSON.stringify(value)).toBe('/');
      }
      const page = await app.request(`/login?next=${encodeURIComponent(value)}`, { headers: { accept: 'text/html' } });
      if (!refusedAtEdge(page.status)) expect(await page.text(), JSON.stringify(value)).toContain('name="next" value="/"');
    }
    // Double-encoded: decoded once it is not a path at all.
    expect((await login('%2F%2Fevil.example')).headers.get('location')).toBe('/');
  });

  it('same-origin paths survive the round trip', async () => {
    for (const [value, out] of SAFE) {
      const r = await login(value);
      expect(r.headers.get('location'), value).toBe(out);
    }
  });
});
