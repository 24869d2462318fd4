import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { createKey } from '../../src/services/keys.ts';
import { describeDb } from '../helpers/db.ts';

/** /docs renders Swagger UI in a real browser with every request outside the server refused (offline). */

declare const document: any;
declare const window: any;
declare const localStorage: any;
declare const sessionStorage: any;

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`docs browser test skipped: ${CHROMIUM} is not installed`);

describeDb('Swagger UI offline', (ctx) => {
  let server: RunningServer;
  let browser: Browser | undefined;
  let key: string;
  beforeAll(async () => {
    key = (await createKey(ctx.database, { scopes: ['read'], name: 'docs reader' })).key;
    server = await listen(createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 1000 }, log: () => {} }).fetch, '127.0.0.1', 0);
    if (HAVE_CHROMIUM) {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
    }
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.skipIf(!HAVE_CHROMIUM)('renders the API title and operations with no request leaving the server', async () => {
    const page = await browser!.newPage();
    const outside: string[] = [];
    const errors: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(server.url) || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    page.on('pageerror', (e) => errors.push(e.message));
    // CSP violations ("Refused to execute/apply/load ...") are console errors, not page errors.
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
    await page.waitForSelector('.swagger-ui .info .title', { timeout: 30_000 });
    await page.waitForSelector('.opblock', { timeout: 30_000 });
    const title = await page.evaluate(() => document.querySelector('.swagger-ui .info .title')?.textContent ?? '');
    const operations = await page.evaluate(() => document.querySelectorAll('.opblock').length);
    expect(title).toContain('assay API');
    expect(operations).toBeGreaterThan(10);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);

  it.skipIf(!HAVE_CHROMIUM)('authorizing with a key works under the CSP and leaves no trace in the browser storage', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    const sent: Array<string | undefined> = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/runs') sent.push(r.headers()['authorization']);
    });
    await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
    await page.waitForSelector('.auth-wrapper .btn.authorize', { timeout: 30_000 });
    await page.click('.auth-wrapper .btn.authorize');
    await page.fill('#auth-bearer-value', key);
    await page.click('.auth-btn-wrapper button[type=submit]');
    await page.click('.auth-btn-wrapper .btn-done');
    await page.waitForSelector('.auth-wrapper .btn.authorize.locked', { timeout: 10_000 });
    // The key really is in use: "Try it out" on GET /api/runs sends it and gets 200.
    const op = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/api/runs"]') }).first();
    await op.locator('.opblock-summary').click();
    await op.locator('.try-out__btn').click();
    await op.locator('.execute').click();
    const status = op.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    expect((await status.textContent())?.trim()).toBe('200');
    expect(sent).toEqual([`Bearer ${key}`]);
    const stored = await page.evaluate(() => {
      const all: string[] = [];
      for (const s of [localStorage, sessionStorage]) for (let i = 0; i < s.length; i++) all.push(`${s.key(i)}=${s.getItem(s.key(i))}`);
      return { all, cookie: document.cookie as string, url: window.location.href as string };
    });
    expect(stored.all.filter((e) => e.includes(key) || e.startsWith('authorized='))).toEqual([]);
    expect(stored.cookie).not.toContain(key);
    expect(stored.url).not.toContain(key);
    // Loading the page again starts unauthorised: nothing was persisted. (Not reload(): the deep link
    // of the expanded operation would make Swagger UI log a deprecation of its own link format.)
    await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
    await page.waitForSelector('.auth-wrapper .btn.authorize.unlocked', { timeout: 30_000 });
    expect(errors).toEqual([]);
  }, 120_000);
});
