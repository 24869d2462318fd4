import { existsSync, readFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
// The app first: @hono/zod-openapi must extend zod before any schema is built (zod 4 adds methods per instance).
import { startWebFixture, type WebFixture } from './web-fixture.ts';
import { createCampaign } from '../../src/services/campaigns/index.ts';

/**
 * The annotation workspace in chromium at 1280 × 800 (one browser for the file): every scale completed
 * with the keyboard alone, picture / answer / progress / save state on screen while the last rubric item
 * has focus, no judge output, no reference in a reference-blind campaign, resume on the first unlabelled
 * control, zoom; and the bundled picture drawn where the rubric puts things.
 */

declare const document: any;
declare const window: any;

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`browser tests skipped: ${CHROMIUM} is not installed (.ci/run installs it with apt-get)`);
const VIEWPORT = { width: 1280, height: 800 };
const ROOT = new URL('../../', import.meta.url).pathname;

let f: WebFixture;
let browser: Browser;

describe.skipIf(!HAVE_CHROMIUM)('the annotation workspace in chromium (1280 × 800)', () => {
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

  /** A logged-in page (keyboard login) recording errors, PUT saves and every URL the page requested. */
  async function loggedIn(key: string): Promise<{ page: Page; errors: string[]; saves: () => number; urls: string[] }> {
    const page = await browser.newPage({ viewport: VIEWPORT });
    const errors: string[] = [];
    const urls: string[] = [];
    let saved = 0;
    page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => urls.push(new URL(r.url()).pathname));
    page.on('response', (r) => r.request().method() === 'PUT' && r.ok() && saved++);
    await page.goto(`${f.server.url}/login?next=%2Fannotate`);
    await page.focus('#key');
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/annotate$/);
    return { page, errors, saves: () => saved, urls };
  }

  const labelsOf = async (id: number, key: string) =>
    (await (await fetch(`${f.server.url}/annotate/${id}/labels`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      items: Record<string, string>;
      claims: Record<string, string>;
      binary?: string;
      numeric?: string;
    };

  /** Which of the named elements lie wholly inside the viewport. */
  const onScreen = (page: Page, selectors: string[]) =>
    page.evaluate((sels: string[]) => {
      const out: Record<string, boolean> = {};
      for (const s of sels) {
        const r = document.querySelector(s)?.getBoundingClientRect();
        out[s] = !!r && r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
      }
      return out;
    }, selectors);

  const focusedUnit = (page: Page) => page.evaluate(() => document.activeElement?.closest('fieldset.unit')?.getAttribute('data-unit') ?? null);

  it('completes an answer on every scale by keyboard alone; the picture, answer, progress and save state stay on screen', async () => {
    const { page, errors, saves, urls } = await loggedIn(f.keys.annotate2);
    await page.goto(`${f.server.url}/annotate/${f.ids.unlabelled}?scale=binary&scale=numeric`);
    const items = await page.locator('fieldset.unit.item').count();
    const claims = await page.locator('fieldset.unit.claim').count();
    expect(items).toBe(17);
    // The fixture's answer is the farmyard description: 7 sentences and 3 meta lines, wrapped lines joined.
    expect(claims).toBe(10);
    expect(await page.locator('fieldset.unit.claim legend').nth(2).innerText()).toBe('3. In the middle a farmer wearing overalls and a straw hat drives a red tractor down a dirt path.');
    expect(await focusedUnit(page)).toBe('item:barn');

    const verdicts = ['correct', 'partial', 'incorrect', 'missing'];
    for (let i = 0; i < items - 1; i++) await page.keyboard.press(String((i % 4) + 1));
    // The last rubric item has focus: the frame has not scrolled away from the picture, answer and status.
    expect(await focusedUnit(page)).toBe('item:style');
    await expect.poll(saves, { timeout: 30_000 }).toBe(items - 1);
    const visible = await onScreen(page, ['#picture-img', '#answer-text', '#progress', '#save-status', '#reference h2', 'fieldset.unit.item:nth-of-type(17) legend']);
    expect(visible).toEqual({ '#picture-img': true, '#answer-text': true, '#progress': true, '#save-status': true, '#reference h2': true, 'fieldset.unit.item:nth-of-type(17) legend': true });
    expect(await page.locator('#progress').innerText()).toBe('Items 16/17 · Claims 0/10 · Pass/fail — · Rating —');
    // Saves may land in any order; the status names the one that landed last, once none is pending.
    expect(await page.locator('#save-status').innerText()).toMatch(/^Saved item [a-z-]+: (correct|partial|incorrect|missing)\.$/);

    await page.keyboard.press(String(((items - 1) % 4) + 1));
    for (let i = 0; i < claims - 1; i++) await page.keyboard.press(['t', 'f', 'u'][i % 3]!);
    // The current claim is marked in the answer text.
    expect(await page.locator('.claim-text.current').getAttribute('id')).toBe(`claim-text-${claims - 1}`);
    await page.keyboard.press(['t', 'f', 'u'][(claims - 1) % 3]!);
    await page.keyboard.press('p');
    expect(await focusedUnit(page)).toBe('numeric');
    expect(await page.locator('fieldset.unit.numeric legend').innerText()).toBe('Rating, 1–5');
    await page.keyboard.press('4');
    await expect.poll(saves, { timeout: 30_000 }).toBe(items + claims + 2);
    expect(await page.locator('#progress').innerText()).toBe('Items 17/17 · Claims 10/10 · Pass/fail pass · Rating 4');
    expect(await page.locator('#save-status').innerText()).toMatch(/^Saved (rating: 4|pass\/fail: pass|claim \d+: \w+)\.$/);
    expect(await onScreen(page, ['#picture-img', '#answer-text', '#progress', '#save-status'])).toEqual({ '#picture-img': true, '#answer-text': true, '#progress': true, '#save-status': true });

    const mine = await labelsOf(f.ids.unlabelled, f.keys.annotate2);
    const itemIds = await page.locator('fieldset.unit.item').evaluateAll((els) => els.map((e) => e.getAttribute('data-key')!));
    expect(mine.items).toEqual(Object.fromEntries(itemIds.map((id, i) => [id, verdicts[i % 4]])));
    expect(mine.claims).toEqual(Object.fromEntries(Array.from({ length: claims }, (_, i) => [String(i), ['true', 'false', 'unverifiable'][i % 3]])));
    // Pass/fail and the rating are stored where campaigns store them, as the calibration readers expect.
    expect([mine.binary, mine.numeric]).toEqual(['true', '4']);
    const rows = await f.database.execute(`select item_key, label from labels where answer_id = $1 and annotator = 'annotator-b' and item_key like 'answer:%' order by item_key`, [f.ids.unlabelled]);
    expect(rows.rows).toEqual([{ item_key: 'answer:binary', label: 'true' }, { item_key: 'answer:numeric', label: '4' }]);

    // The page asked for nothing but its own routes: no grade, report or API was read.
    expect(urls.filter((u) => !/^\/(annotate(\/\d+(\/labels|\/picture)?)?|static\/[\w.]+|login)$/.test(u))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('shows no judge output anywhere, though the answer has a judge grade', async () => {
    const { page } = await loggedIn(f.keys.annotate);
    await page.goto(`${f.server.url}/annotate/${f.ids.unlabelled}`);
    const g = (await f.database.execute(`select completeness, correctness, f1 from grades where answer_id = $1`, [f.ids.unlabelled])).rows[0] as Record<string, number>;
    expect(g.f1).toBeGreaterThan(0);
    // The banner naming the default judge is the frame's, not an output; everything else is checked.
    const text: string = await page.evaluate(() => {
      const main = document.querySelector('main').cloneNode(true);
      return main.innerText ?? main.textContent;
    });
    expect(text).not.toMatch(/completeness|correctness|\bF1\b|lexical|judge’s verdict|judge said|evidence/i);
    for (const v of [g.completeness, g.correctness, g.f1]) for (const d of [2, 3]) expect(text).not.toContain(Number(v).toFixed(d));
    expect(await page.locator('input[type=radio]:checked').count()).toBe(0);
    await page.close();
  }, 60_000);

  it('resume lands on the first unlabelled control', async () => {
    const { page, saves } = await loggedIn(f.keys.annotate);
    await page.goto(`${f.server.url}/annotate/${f.ids.hostile}`);
    expect(await focusedUnit(page)).toBe('item:barn');
    for (const k of ['1', '2', '3']) await page.keyboard.press(k);
    await expect.poll(saves, { timeout: 30_000 }).toBe(3);
    await page.reload();
    expect(await focusedUnit(page)).toBe('item:farmer');
    // Skipping a control leaves it first: label item 5, not 4; the reload still opens on item 4.
    await page.keyboard.press('j');
    await page.keyboard.press('1');
    await expect.poll(saves, { timeout: 30_000 }).toBe(4);
    await page.reload();
    expect(await focusedUnit(page)).toBe('item:farmer');
    await page.close();
  }, 60_000);

  it('zooms the picture with + and − and with a click', async () => {
    const { page } = await loggedIn(f.keys.annotate);
    await page.goto(`${f.server.url}/annotate/${f.ids.unlabelled}`);
    const width = () => page.locator('#picture-img').evaluate((e) => e.getBoundingClientRect().width);
    const base = await width();
    expect(await page.locator('#picture-img').evaluate((e) => e.naturalWidth)).toBe(1800);
    await page.keyboard.press('+');
    expect(await width()).toBeCloseTo(base * 1.5, 0);
    await page.locator('#picture-view').click({ position: { x: 50, y: 50 } });
    expect(await width()).toBeCloseTo(base * 2, 0);
    await page.keyboard.press('-');
    await page.keyboard.press('-');
    expect(await width()).toBeCloseTo(base, 0);
    expect(await page.locator('#zoom-level').innerText()).toBe('100%');
    await page.close();
    // The picture route: the rubric's PNG for an annotate key, under the pages' headers; nothing without one.
    const url = `${f.server.url}/annotate/${f.ids.unlabelled}/picture`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${f.keys.annotate}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(`${ROOT}rubrics/images/farmyard.png`))).toBe(true);
    expect((await fetch(url, { redirect: 'manual' })).status).not.toBe(200);
  }, 60_000);

  it('a reference-blind campaign shows no reference; its labels go to the campaign', async () => {
    await createCampaign(f.database, {
      name: 'blind',
      answers: { run: 'dts-run', task: 'describe' },
      scales: { verdict: true, binary: { question: 'Is the description right?' } },
      annotators: ['annotator-a'],
      overlap: 1,
      hide: { reference: true },
    });
    const { page, saves, errors } = await loggedIn(f.keys.annotate);
    await page.goto(`${f.server.url}/annotate/${f.ids.unlabelled}?campaign=blind`);
    const html = await page.content();
    const rubric = parseYaml(readFileSync(`${ROOT}rubrics/farmyard.yaml`, 'utf8')) as { reference: string; items: Array<{ text: string }> };
    // Every sentence of the reference is absent, apart from the ones a rubric item repeats word for word.
    const prefixes = rubric.reference.split(/(?<=\.)\s+/).map((s) => s.replace(/\s+/g, ' ').slice(0, 40));
    const own = prefixes.filter((p) => !rubric.items.some((it) => it.text.startsWith(p)));
    expect(own.length).toBeGreaterThan(5);
    for (const p of own) expect(html).not.toContain(p);
    expect(await page.locator('#reference').innerText()).toContain('Hidden in this campaign');
    expect(await page.locator('fieldset.unit.claim').count()).toBe(0);
    expect(await page.locator('fieldset.unit.binary legend').innerText()).toBe('Is the description right?');
    await page.keyboard.press('2');
    await expect.poll(saves, { timeout: 30_000 }).toBe(1);
    const r = await f.database.execute(`select l.label, c.name from labels l join campaigns c on c.id = l.campaign_id where l.answer_id = $1 and l.annotator = 'annotator-a' and l.item_key = 'barn'`, [f.ids.unlabelled]);
    expect(r.rows).toEqual([{ label: 'partial', name: 'blind' }]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('the bundled picture draws each rubric item where the rubric says', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 600 } });
    await page.goto(`file://${ROOT}rubrics/images/farmyard.svg`);
    const boxes = (await page.evaluate(() => {
      const out: Record<string, { x: number; y: number; w: number; h: number }> = {};
      for (const g of document.querySelectorAll('svg > g[id]')) {
        const b = g.getBBox();
        out[g.id] = { x: b.x, y: b.y, w: b.width, h: b.height };
      }
      return out;
    })) as Record<string, { x: number; y: number; w: number; h: number }>;
    const cx = (id: string) => boxes[id]!.x + boxes[id]!.w / 2;
    const cy = (id: string) => boxes[id]!.y + boxes[id]!.h / 2;
    const within = (a: string, b: string) => boxes[a]!.x >= boxes[b]!.x && boxes[a]!.y >= boxes[b]!.y && boxes[a]!.x + boxes[a]!.w <= boxes[b]!.x + boxes[b]!.w && boxes[a]!.y + boxes[a]!.h <= boxes[b]!.y + boxes[b]!.h;
    const fence = boxes.fence!;
    expect(cx('barn')).toBeLessThan(300); // left third
    expect(within('cow-in-barn', 'barn')).toBe(true);
    expect(cy('rooster-on-cow')).toBeLessThan(cy('cow-in-barn')); // on the cow's back
    expect(cx('farmer')).toBeGreaterThan(300);
    expect(cx('farmer')).toBeLessThan(600); // middle
    expect(Math.abs(cx('tractor-green') - cx('farmer'))).toBeLessThan(60);
    expect(fence.w).toBeGreaterThan(600);
    expect(cy('fence')).toBeGreaterThan(200);
    expect(cy('fence')).toBeLessThan(400); // across the middle
    for (const id of ['pasture-animals', 'calves']) {
      expect(boxes[id]!.x, id).toBeGreaterThan(550); // on the right
      expect(cy(id), id).toBeLessThan(fence.y + fence.h / 2); // behind the fence
    }
    expect(boxes.sheep!.y).toBeGreaterThan(fence.y + fence.h - 40); // just in front of the fence
    expect(boxes.sheep!.y).toBeLessThan(fence.y + fence.h + 40);
    expect(boxes['pigs-mud']!.y + boxes['pigs-mud']!.h).toBeGreaterThan(580); // foreground
    expect(boxes.pond!.x).toBeGreaterThan(600);
    expect(boxes.pond!.y).toBeGreaterThan(400); // lower right
    expect(boxes.chickens!.x + boxes.chickens!.w).toBeLessThan(260);
    expect(boxes.chickens!.y).toBeGreaterThan(400); // lower left
    expect(boxes.sky!.y).toBe(0);
    expect(cx('hills-windmill')).toBeCloseTo(450, -2); // top centre
    expect(boxes['hills-windmill']!.y).toBeLessThan(150);
    await page.close();
  }, 60_000);
});
