import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The app first: @hono/zod-openapi must extend zod before any schema is built (zod 4 adds methods per instance).
import { startWebFixture, type WebFixture } from './web-fixture.ts';
import { createCampaign } from '../../src/services/campaigns/index.ts';
import { createKey } from '../../src/services/keys.ts';
import { QUEUE_WHY } from '../../src/web/pages/workspace.tsx';

/**
 * A campaign run through the pages in chromium at 1280 × 800 (one browser for the file): three
 * annotators with k = 2 take answers with "Take my next answer" and label them in the workspace, until
 * every answer holds exactly two labels; the answers where judges or panel samples disagree come first
 * and each workspace says why it is queued; a disagreement reaches the admin's campaign page side by
 * side, the final label is recorded through its form, and the adjudicated calibration report counts it.
 */

declare const document: any;

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`browser tests skipped: ${CHROMIUM} is not installed (.ci/run installs it with apt-get)`);
const VIEWPORT = { width: 1280, height: 800 };
const CAMPAIGN = 'browser-study';
// Two bundled descriptions the seed's lexical judge and baseline panel disagree on, and two answers of
// the web fixture graded by the lexical judge alone (nothing to disagree with).
const ANSWERS = ['farmyard-describe', 'a-low-describe', 'describe', 'hostile'];

let f: WebFixture;
let browser: Browser;

describe.skipIf(!HAVE_CHROMIUM)('a campaign through the pages in chromium (1280 × 800)', () => {
  const idOf = new Map<string, number>();
  let keyC = '';
  let pairedBefore = 0;
  const reasonOf = new Map<number, string>();

  beforeAll(async () => {
    [f, browser] = await Promise.all([
      startWebFixture(),
      chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'] }),
    ]);
    keyC = (await createKey(f.database, { scopes: ['annotate'], name: 'annotator-c' })).key;
    await createCampaign(f.database, {
      name: CAMPAIGN,
      answers: { task: 'describe', filter: { rubric: 'farmyard-54', answers: ANSWERS } },
      scales: { binary: { question: 'Does the description match the picture?' }, numeric: { k: 3, anchors: ['poor', 'fair', 'good'] } },
      annotators: ['annotator-a', 'annotator-b', 'annotator-c'],
      overlap: 2,
      order: { auditShare: 0.5, seed: 1 },
    });
    const rows = await f.database.execute(
      `select a.external_id as e, a.id, ca.reason from campaign_answers ca join answers a on a.id = ca.answer_id join campaigns c on c.id = ca.campaign_id where c.name = $1 order by ca.rank`,
      [CAMPAIGN],
    );
    for (const r of rows.rows) {
      idOf.set(String(r.e), Number(r.id));
      reasonOf.set(Number(r.id), String(r.reason));
    }
    pairedBefore = await pairedByLabel();
  }, 240_000);

  /** How many assemblies /describe-then-solve?perception=label pairs with a human-labelled description. */
  async function pairedByLabel(): Promise<number> {
    const html = await (await fetch(`${f.server.url}/describe-then-solve?perception=label`, { headers: { authorization: `Bearer ${f.keys.admin}`, accept: 'text/html' } })).text();
    const m = /\((\d+) paired, (\d+) without/.exec(html);
    return m ? Number(m[1]) : 0;
  }

  /** The counts in the calibration page's lede: [units, answers, humans]. */
  async function calibrationLede(page: Page, query: string): Promise<[number, number, string] | null> {
    await page.goto(`${f.server.url}/calibration?${query}`);
    const m = /(\d+) labelled units over (\d+) answers; humans: ([^;]+);/.exec(await page.locator('main .lede').first().innerText());
    return m ? [Number(m[1]), Number(m[2]), m[3]!] : null;
  }
  afterAll(async () => {
    await browser?.close();
    await f?.close();
  });

  async function loggedIn(key: string, next: string): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: VIEWPORT });
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    await page.goto(`${f.server.url}/login?next=${encodeURIComponent(next)}`);
    await page.focus('#key');
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === next.split('?')[0]);
    return { page, errors };
  }

  /** Presses "Take my next answer"; the answer served and what its workspace says about why, or null when nothing is left. */
  async function takeNext(page: Page): Promise<{ id: number; why: string } | null> {
    await page.goto(`${f.server.url}/annotate?campaign=${CAMPAIGN}`);
    await Promise.all([page.waitForURL((u) => u.pathname !== '/annotate' || u.searchParams.get('finished') === '1'), page.getByRole('button', { name: 'Take my next answer' }).click()]);
    const m = /^\/annotate\/(\d+)$/.exec(new URL(page.url()).pathname);
    if (!m) return null;
    const why = (await page.locator('.ws-why').getAttribute('data-why')) ?? '';
    expect((await page.locator('.ws-why').innerText()).trim()).toBe(`· queued: ${QUEUE_WHY[why as keyof typeof QUEUE_WHY]}`);
    return { id: Number(m[1]), why };
  }

  /** Labels the served answer pass (p) or fail (f) and rates it 1..3 by keyboard; waits for both saves to land. */
  async function label(page: Page, key: 'p' | 'f', rating: number): Promise<void> {
    for (const k of [key, String(rating)]) {
      const saved = page.waitForResponse((r) => r.request().method() === 'PUT' && r.ok());
      await page.keyboard.press(k);
      await saved;
    }
    await expect.poll(() => page.locator('#progress').innerText()).toBe(`Pass/fail ${key === 'p' ? 'pass' : 'fail'} · Rating ${rating}`);
  }

  it('three annotators, k = 2: disagreements first, each page says why, every answer labelled by exactly two', async () => {
    expect([...reasonOf.values()]).toEqual(['disagreement', 'disagreement', 'audit', 'rest']);
    expect([idOf.get('farmyard-describe'), idOf.get('a-low-describe')].map((id) => reasonOf.get(id!))).toEqual(['disagreement', 'disagreement']);
    const people = [];
    for (const k of [f.keys.annotate, f.keys.annotate2, keyC]) people.push(await loggedIn(k, `/annotate?campaign=${CAMPAIGN}`));
    const pages = people.map((p) => p.page);
    const served: Array<{ who: number; id: number; why: string }> = [];
    const finished = new Set<number>();
    // Round robin until no one is served any more; annotator-b fails the first answer, everyone else passes.
    for (let round = 0; finished.size < 3 && round < 6; round++) {
      for (const [who, page] of pages.entries()) {
        if (finished.has(who)) continue;
        const n = await takeNext(page);
        if (!n) {
          expect(await page.locator('main').innerText()).toContain('Nothing is left for you in this campaign');
          finished.add(who);
          continue;
        }
        served.push({ who, ...n });
        const fails = who === 1 && n.id === idOf.get('farmyard-describe');
        await label(page, fails ? 'f' : 'p', fails ? 1 : 3 - (served.length % 2));
      }
    }
    expect(finished.size).toBe(3);
    // Each workspace named the reason its answer has in the queue.
    for (const s of served) expect(s.why, `answer ${s.id}`).toBe(reasonOf.get(s.id));
    // Every annotator's first answers are the disagreements, and no one is served an audit or rest
    // answer while a disagreement still has an open slot.
    for (const who of [0, 1, 2]) {
      const mine = served.filter((s) => s.who === who).map((s) => s.why);
      expect(mine[0], `annotator ${who}`).toBe('disagreement');
      expect([...mine].sort((a, b) => rank(a) - rank(b)), `annotator ${who}`).toEqual(mine);
    }
    const firstNonDisagreement = served.findIndex((s) => s.why !== 'disagreement');
    expect(served.slice(0, firstNonDisagreement).map((s) => s.why)).toEqual(['disagreement', 'disagreement', 'disagreement', 'disagreement']);
    // Exactly two labels per answer, by two distinct annotators (the labels themselves, not the slots).
    const labels = await f.database.execute(
      `select a.external_id as e, count(distinct l.annotator)::int as n from labels l join answers a on a.id = l.answer_id
        where l.item_key = 'answer:binary' and l.campaign_id = (select id from campaigns where name = $1) group by a.external_id order by a.external_id`,
      [CAMPAIGN],
    );
    expect(labels.rows).toEqual([...ANSWERS].sort().map((e) => ({ e, n: 2 })));
    expect(served).toHaveLength(8);
    for (const p of people) expect(p.errors).toEqual([]);
    // Annotators get no link to the admin pages.
    expect(await pages[0]!.locator('nav a[href="/campaigns"]').count()).toBe(0);
    for (const p of pages) await p.close();
  }, 240_000);

  it('the disagreement reaches the admin side by side; the final label from the form counts in the adjudicated calibration report', async () => {
    const units = (page: Page) => calibrationLede(page, 'scale=binary&humans=adjudicated');
    const { page, errors } = await loggedIn(f.keys.admin, '/');
    // The workspace's pass/fail and ratings reach the reports that read them: every annotator on the
    // binary and numeric calibration, and the three campaign descriptions whose run has an assembly
    // of the puzzle (a-low, dts-run, xss-run; the farmyard-describe run has none) in describe-then-solve.
    const humans = 'annotator-a, annotator-b, annotator-c';
    expect(await calibrationLede(page, 'scale=binary')).toEqual([4, 4, humans]);
    expect(await calibrationLede(page, 'scale=numeric')).toEqual([4, 4, humans]);
    expect((await pairedByLabel()) - pairedBefore).toBe(3);
    // The tie (pass against fail) has no human reference until it is settled: 3 of the 4 answers count.
    expect(await units(page)).toEqual([3, 3, 'adjudicated']);
    await page.goto(`${f.server.url}/`);
    await Promise.all([page.waitForURL(/\/campaigns$/), page.locator('nav a[href="/campaigns"]').click()]);
    await Promise.all([page.waitForURL(new RegExp(`/campaigns/${CAMPAIGN}$`)), page.getByRole('link', { name: CAMPAIGN }).click()]);
    expect(await page.locator('h2', { hasText: 'Waiting for adjudication' }).innerText()).toBe('Waiting for adjudication (1)');
    const waiting = page.locator('ul.disagreements > li');
    expect(await waiting.count()).toBe(1);
    expect(await waiting.locator('strong').innerText()).toBe('farmyard-describe · answer:binary');
    expect(await waiting.innerText()).toContain('annotator-a says true, annotator-b says false');
    await waiting.locator('select[name=label]').selectOption('false');
    await waiting.locator('input[name=note]').fill('the fence is missing');
    await Promise.all([page.waitForURL(new RegExp(`/campaigns/${CAMPAIGN}$`)), waiting.getByRole('button', { name: 'Record final label' }).click()]);
    expect(await page.locator('h2', { hasText: 'Waiting for adjudication' }).innerText()).toBe('Waiting for adjudication (0)');
    expect(await page.locator('table').filter({ hasText: 'false (web admin)' }).count()).toBeGreaterThan(0);
    const stored = await f.database.execute(`select label, adjudicator, note from adjudications where answer_id = $1 and item_key = 'answer:binary'`, [idOf.get('farmyard-describe')]);
    expect(stored.rows).toEqual([{ label: 'false', adjudicator: 'web admin', note: 'the fence is missing' }]);
    // The settled unit joins the report: 4 units over 4 answers, the final label its reference.
    expect(await units(page)).toEqual([4, 4, 'adjudicated']);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});

const rank = (why: string) => ['disagreement', 'audit', 'rest'].indexOf(why);
