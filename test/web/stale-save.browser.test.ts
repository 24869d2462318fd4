import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebFixture, type WebFixture } from './web-fixture.ts';

/**
 * Two tabs on one answer in chromium: the tab rendered before the other one saved is told its save was
 * refused (the unit changed), offered a reload, and the other tab's label stays; after the reload it saves.
 */

declare const document: any;

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
let f: WebFixture;
let browser: Browser;

describe.skipIf(!HAVE_CHROMIUM)('a stale tab in chromium', () => {
  beforeAll(async () => {
    [f, browser] = await Promise.all([
      startWebFixture(),
      chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'] }),
    ]);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await f?.close();
  });

  async function tab(): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(`${f.server.url}/login?next=%2Fannotate`);
    await page.fill('#key', f.keys.annotate);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/annotate$/);
    await page.goto(`${f.server.url}/annotate/${f.ids.unlabelled}`);
    return { page, errors };
  }
  const labels = async () => (await (await fetch(`${f.server.url}/annotate/${f.ids.unlabelled}/labels`, { headers: { authorization: `Bearer ${f.keys.annotate}` } })).json()) as { items: Record<string, string> };
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.closest('fieldset.unit')?.getAttribute('data-unit') ?? null);

  it('the older tab is refused with the changed unit named and a reload; the newer label stays', async () => {
    const [one, two] = [await tab(), await tab()];
    expect(await focused(one.page)).toBe('item:barn');
    expect(await focused(two.page)).toBe('item:barn');
    await one.page.keyboard.press('1');
    await expect.poll(() => one.page.locator('#save-status').innerText()).toMatch(/^Saved item barn: correct\.$/);
    // The same tab changing its mind is no conflict: it saw its own save.
    await one.page.keyboard.press('k');
    await one.page.keyboard.press('2');
    await expect.poll(() => one.page.locator('#save-status').innerText()).toMatch(/^Saved item barn: partial\.$/);
    await two.page.keyboard.press('4');
    await expect.poll(() => two.page.locator('#save-status').innerText()).toMatch(/^Not saved \(item barn: missing\): .*item 'barn' is now 'partial'.*Reload to see the latest labels$/s);
    expect((await labels()).items.barn).toBe('partial');
    // Other units of the stale tab still save (nobody changed them).
    const second = (await focused(two.page))!.slice('item:'.length);
    expect(second).not.toBe('barn');
    await two.page.keyboard.press('3');
    await expect.poll(() => two.page.locator('#save-status').innerText()).toBe(`Saved item ${second}: incorrect.`);
    // Focus moved on after each choice: back two to the barn, and try it again from the stale state.
    await two.page.keyboard.press('k');
    await two.page.keyboard.press('k');
    expect(await focused(two.page)).toBe('item:barn');
    await two.page.keyboard.press('4');
    await expect.poll(() => two.page.locator('#save-status').innerText()).toMatch(/item 'barn' is now 'partial'/);
    await two.page.click('#save-reload');
    await two.page.waitForLoadState('load');
    expect(await two.page.locator('fieldset[data-unit="item:barn"] input:checked').getAttribute('value')).toBe('partial');
    await two.page.locator('fieldset[data-unit="item:barn"] input[value="missing"]').check();
    await expect.poll(() => two.page.locator('#save-status').innerText()).toMatch(/^Saved item barn: missing\.$/);
    expect(await labels()).toMatchObject({ items: { barn: 'missing', [second]: 'incorrect' } });
    expect([...one.errors, ...two.errors]).toEqual([]);
  }, 120_000);
});
