import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { describeDb } from '../helpers/db.ts';

/** /docs renders Swagger UI in a real browser with every request outside the server refused (offline). */

declare const document: any;

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`docs browser test skipped: ${CHROMIUM} is not installed`);

describeDb('Swagger UI offline', (ctx) => {
  let server: RunningServer;
  let browser: Browser | undefined;
  beforeAll(async () => {
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
});
