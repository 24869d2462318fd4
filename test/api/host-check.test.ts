import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { hostPolicy } from '../../src/api/host-check.ts';
import { canonicalHostName, hostnameOf } from '../../src/domain/host-names.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * DNS rebinding (issue 11, finding 5): a server on loopback serving its open report pages to
 * `Host: attacker.example`. Only loopback names, ASSAY_ALLOWED_HOSTS and the listen host are served.
 */

describe('the host policy', () => {
  const loopbackOnly = hostPolicy([], '127.0.0.1');

  it.each([
    'localhost',
    'localhost:8787',
    'LOCALHOST:1',
    'localhost.',
    '127.0.0.1',
    '127.0.0.1:8787',
    '127.1.2.3:80',
    '[::1]',
    '[::1]:8787',
    '[0:0:0:0:0:0:0:1]:9',
    'app.localhost:8787',
    'a.b.localhost',
  ])('allows the loopback name %s', (host) => {
    expect(loopbackOnly.allows(host)).toBe(true);
  });

  it.each([
    'attacker.example',
    'attacker.example:8787',
    'localhost.attacker.example',
    'localhostx',
    'evillocalhost',
    '127.0.0.1.attacker.example',
    '0.0.0.0',
    '10.0.0.5',
    '[::2]',
    'localhost@attacker.example',
    'attacker.example#localhost',
    'localhost/attacker',
    'localhost:8787:1',
    'localhost attacker.example',
    '',
    'x'.repeat(300),
  ])('refuses %s', (host) => {
    expect(loopbackOnly.allows(host)).toBe(false);
  });

  it('allows the configured names (any port, any case) and a non-loopback listen host', () => {
    const p = hostPolicy(['assay.lab.example', '[fe80::1]', '10.0.0.5'], '192.168.1.20');
    for (const ok of ['assay.lab.example', 'Assay.Lab.Example:443', 'assay.lab.example.', '[fe80::1]:8787', '10.0.0.5:8787', '192.168.1.20', '192.168.1.20:8787', 'localhost:1']) {
      expect(p.allows(ok), ok).toBe(true);
    }
    for (const no of ['lab.example', 'x.assay.lab.example', 'assay.lab.example.attacker.example', '10.0.0.6', '192.168.1.2']) expect(p.allows(no), no).toBe(false);
  });

  it('canonicalises configured names, and refuses ports, schemes and paths in them', () => {
    expect(canonicalHostName(' Assay.Example ')).toBe('assay.example');
    expect(canonicalHostName('::1')).toBe('[::1]');
    expect(canonicalHostName('0.0.0.0')).toBe('0.0.0.0');
    for (const bad of ['assay.example:8787', 'https://assay.example', 'assay.example/x', '[::1]:80', 'a b', '']) expect(canonicalHostName(bad), bad).toBeNull();
    expect(hostnameOf('127.1')).toBe('127.0.0.1');
  });
});

interface Raw {
  status: number;
  type: string;
  body: string;
}

/** A request with exactly the given Host header (fetch cannot set it). `path` may be absolute-form. */
function send(server: RunningServer, path: string, host: string, headers: Record<string, string> = {}): Promise<Raw> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host, ...headers }, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describeDb('a server on loopback', (ctx) => {
  let server: RunningServer;
  let remote: RunningServer;
  beforeAll(async () => {
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000, host: '127.0.0.1', allowedHosts: ['assay.lab.example'] }, log: () => {} });
    server = await listen(app.fetch, '127.0.0.1', 0);
    // As if started with HOST=192.168.7.7 (listening on loopback here, so the test stays local).
    const offLoopback = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000, host: '192.168.7.7' }, log: () => {} });
    remote = await listen(offLoopback.fetch, '127.0.0.1', 0);
  });
  afterAll(async () => {
    await server?.close();
    await remote?.close();
  });

  const PATHS = ['/health', '/api/runs', '/openapi.json', '/docs', '/docs/swagger-ui.css', '/', '/answers', '/login', '/static/style.css', '/no-such-page'];

  it('refuses Host: attacker.example on every kind of route with 400: the envelope for the API, a plain page for browsers', async () => {
    for (const path of PATHS) {
      const api = await send(server, path, 'attacker.example:8787');
      expect(api.status, path).toBe(400);
      expect(api.type, path).toContain('application/json');
      expect(JSON.parse(api.body), path).toEqual({ error: { code: 'bad_input', message: expect.stringContaining("host 'attacker.example:8787' is not served here") } });
      const browser = await send(server, path, 'attacker.example', { accept: 'text/html,application/xhtml+xml' });
      expect(browser.status, path).toBe(400);
      if (path === '/health' || path.startsWith('/api/') || path === '/openapi.json') {
        expect(browser.type, path).toContain('application/json');
      } else {
        expect(browser.type, path).toContain('text/html');
        expect(browser.body).toContain('ASSAY_ALLOWED_HOSTS');
        expect(browser.body).not.toContain('<script');
      }
    }
  });

  it('escapes nothing it should not: a hostile Host never comes back as markup', async () => {
    const r = await send(server, '/', 'localhost"><script>x</script>', { accept: 'text/html' });
    expect(r.status).toBe(400);
    expect(r.body).not.toContain('<script>');
  });

  it('refuses an absolute-form request target naming another host, even with Host: localhost', async () => {
    const r = await send(server, 'http://attacker.example/health', 'localhost');
    expect(r.status).toBe(400);
    expect(r.body).toContain('attacker.example');
  });

  it('serves loopback names and the configured host', async () => {
    for (const host of ['127.0.0.1', 'localhost:1234', '[::1]:8787', 'report.localhost', 'assay.lab.example:443']) {
      const health = await send(server, '/health', host);
      expect(health.status, host).toBe(200);
      const page = await send(server, '/', host, { accept: 'text/html' });
      expect(page.status, host).toBe(200);
      expect(page.type).toContain('text/html');
    }
  });

  it('off loopback, also the listen host itself and nothing else', async () => {
    expect((await send(remote, '/health', '192.168.7.7:8787')).status).toBe(200);
    expect((await send(remote, '/health', 'localhost')).status).toBe(200);
    expect((await send(remote, '/health', 'assay.lab.example')).status).toBe(400);
    expect((await send(remote, '/health', '192.168.7.8')).status).toBe(400);
  });
});
