import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebFixture, type WebFixture } from './web-fixture.ts';

/**
 * The pages in a real browser (Debian's chromium through playwright-core): no console or page errors,
 * non-blank screenshots, labels, focus order and contrast, and one answer annotated with the keyboard
 * only, checked through HTTP with the annotator's key and through the API.
 */

// These run inside the page (page.evaluate); the project compiles without the DOM library.
declare const window: any;
declare const document: any;
declare const CSS: any;
declare const getComputedStyle: (el: any) => { color: string; backgroundColor: string };

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`browser tests skipped: ${CHROMIUM} is not installed (.ci/run installs it with apt-get)`);

let f: WebFixture;
let browser: Browser;

describe.skipIf(!HAVE_CHROMIUM)('pages in chromium', () => {
  let blankPng = 0;
  beforeAll(async () => {
    [f, browser] = await Promise.all([
      startWebFixture(),
      chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
      }),
    ]);
    const p = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    await p.setContent('<html><body></body></html>');
    blankPng = (await p.screenshot()).length;
    await p.close();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await f?.close();
  });

  /** Opens a page, collecting console errors and uncaught page errors. */
  async function open(path: string, page?: Page): Promise<{ page: Page; errors: string[] }> {
    const p = page ?? (await browser.newPage({ viewport: { width: 1366, height: 768 } }));
    const errors: string[] = [];
    p.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
    p.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    const res = await p.goto(f.server.url + path, { waitUntil: 'load' });
    expect(res?.status(), path).toBe(200);
    return { page: p, errors };
  }

  it('every page loads without console errors and renders a non-blank screenshot', async () => {
    const paths = ['/', '/answers', `/answers/${f.ids.farmyard}`, `/answers/${f.ids.shifted}`, `/answers/${f.ids.hostile}`, '/calibration', '/describe-then-solve', '/benchmarks', '/login'];
    for (const path of paths) {
      const { page, errors } = await open(path);
      expect(errors, path).toEqual([]);
      const png = await page.screenshot({ fullPage: false });
      expect(png.subarray(1, 4).toString(), path).toBe('PNG');
      expect(png.length, `${path} screenshot is not blank`).toBeGreaterThan(blankPng * 3);
      expect(await page.evaluate(() => window.__pwned), path).toBeUndefined();
      await page.close();
    }
  }, 180_000);

  it('the hostile answer shows as text, and no injected element exists', async () => {
    const { page } = await open(`/answers/${f.ids.hostile}`);
    const text = await page.locator('pre.answer').innerText();
    expect(text).toContain('<script>window.__pwned = 1</script>');
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
    await page.close();
  });

  it('accessibility: labelled controls, skip link first in focus order, contrast ≥ 4.5:1', async () => {
    for (const path of ['/', '/answers', '/calibration', '/describe-then-solve', '/benchmarks', '/login']) {
      const { page } = await open(path);
      const unlabelled = await page.evaluate(() =>
        ([...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')] as any[])
          .filter((el) => {
            const id = el.getAttribute('id');
            const byFor = id ? document.querySelector(`label[for="${CSS.escape(id)}"]`) : null;
            const text = el.tagName === 'BUTTON' ? (el.textContent ?? '').trim() : '';
            return !byFor && !el.closest('label') && !el.getAttribute('aria-label') && !text;
          })
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      expect(unlabelled, path).toEqual([]);
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.className), `${path}: first Tab stop`).toBe('skip');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('href')), `${path}: nav comes next`).toBe('/');
      const contrast = await page.evaluate(contrastFailures);
      expect(contrast.failures, path).toEqual([]);
      expect(contrast.checked, `${path}: text elements checked`).toBeGreaterThan(10);
      await page.close();
    }
  }, 120_000);

  it('one answer annotated with the keyboard only; labels checked through HTTP with the annotator key and the API', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    // Log in with the keyboard: focus the key field, type, Enter.
    await page.goto(`${f.server.url}/annotate`);
    expect(page.url()).toContain('/login?next=%2Fannotate');
    await page.focus('#key');
    await page.keyboard.type(f.keys.annotate);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/annotate$/);
    await page.goto(`${f.server.url}/annotate/${f.ids.unlabelled}`);
    const items = await page.locator('fieldset.unit.item').count();
    const claims = await page.locator('fieldset.unit.claim').count();
    expect(items).toBeGreaterThan(5);
    expect(claims).toBeGreaterThan(2);
    let saved = 0;
    page.on('response', (r) => r.request().method() === 'PUT' && r.ok() && saved++);
    // Moving around does not change anything: down, down, up, k → back on the first item.
    for (const k of ['ArrowDown', 'j', 'ArrowUp', 'k']) await page.keyboard.press(k);
    expect(await page.locator('fieldset.unit').first().getAttribute('class')).toContain('current');
    const verdicts = ['correct', 'partial', 'incorrect', 'missing'];
    const claimKeys = ['t', 'f', 'u'];
    const claimLabels = ['true', 'false', 'unverifiable'];
    for (let i = 0; i < items; i++) await page.keyboard.press(String((i % 4) + 1));
    for (let i = 0; i < claims; i++) await page.keyboard.press(claimKeys[i % 3]!);
    await expect.poll(() => saved, { timeout: 30_000 }).toBe(items + claims);
    expect(await page.locator('#progress').innerText()).toBe(`Items ${items}/${items} · Claims ${claims}/${claims}`);
    expect(errors).toEqual([]);

    const itemIds = await page.locator('fieldset.unit.item').evaluateAll((els) => els.map((e) => e.getAttribute('data-key')!));
    const mine = (await (await fetch(`${f.server.url}/annotate/${f.ids.unlabelled}/labels`, { headers: { authorization: `Bearer ${f.keys.annotate}` } })).json()) as {
      annotator: string;
      items: Record<string, string>;
      claims: Record<string, string>;
    };
    expect(mine.annotator).toBe('annotator-a');
    expect(mine.items).toEqual(Object.fromEntries(itemIds.map((id, i) => [id, verdicts[i % 4]])));
    expect(mine.claims).toEqual(Object.fromEntries(Array.from({ length: claims }, (_, i) => [String(i), claimLabels[i % 3]])));
    const api = (await (await fetch(`${f.server.url}/api/labels?annotator=annotator-a&limit=500`, { headers: { authorization: `Bearer ${f.keys.admin}` } })).json()) as { total: number };
    expect(api.total).toBe(items + claims);

    // n: on to the next answer of the queue.
    await page.keyboard.press('n');
    await page.waitForURL((u) => /\/annotate\/\d+$/.test(u.pathname) && !u.pathname.endsWith(`/${f.ids.unlabelled}`));
    const progress = await (await fetch(`${f.server.url}/annotate`, { headers: { authorization: `Bearer ${f.keys.annotate}`, accept: 'text/html' } })).text();
    expect(progress).toMatch(/: 1 of \d+ answers done/);
    await page.close();
  }, 120_000);
});

/** Runs in the page: text elements whose colour against their effective background is below 4.5:1. */
function contrastFailures(): { checked: number; failures: string[] } {
  const parse = (c: string): [number, number, number, number] => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1]!.split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0]!, p[1]!, p[2]!, p[3] ?? 1];
  };
  const lum = ([r, g, b]: number[]) => {
    const ch = (v: number) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * ch(r!) + 0.7152 * ch(g!) + 0.0722 * ch(b!);
  };
  const background = (el: any): number[] => {
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg[3] > 0.5) return bg;
    }
    return [255, 255, 255, 1];
  };
  const out: string[] = [];
  let checked = 0;
  for (const el of [...document.querySelectorAll('body *')] as any[]) {
    if (el.closest('svg')) continue;
    const own = ([...el.childNodes] as any[]).some((n) => n.nodeType === 3 && (n.textContent ?? '').trim() !== '');
    if (!own || el.offsetParent === null) continue;
    checked++;
    const fg = parse(getComputedStyle(el).color);
    const l1 = lum(fg);
    const l2 = lum(background(el));
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    if (ratio < 4.5) out.push(`${el.tagName.toLowerCase()}.${el.className}: ${ratio.toFixed(2)}`);
  }
  return { checked, failures: out };
}
