// The app first: domain/labels.ts must be loaded after @hono/zod-openapi extends zod (src/api/routes/calibrate.ts).
import { startWebFixture, type WebFixture } from './web-fixture.ts';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { num } from '../../src/web/format.ts';
import { expectedPanel, type ExpectedPanel } from './calibration-panel-expected.ts';

/**
 * Acceptance (issue 13): on the bundled examples the calibration page shows panel vs members vs humans,
 * item instability and the reliability diagram — in chromium at 1280×800, read as a visitor sees them
 * (rendered cell text, the drawn SVG), with every number checked against expectedPanel (the same labels
 * and grades through src/stats).
 */

declare const document: any;

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const PANEL = 'panel-lexical';
const MEMBERS = ['lexical', 'lexical-strict', 'lexical-lenient'];
const RUN = 'farmyard-describe';

let f: WebFixture;
let browser: Browser;
let want: ExpectedPanel;

/** The rendered rows of the section's table `id`: cell texts as shown. */
async function tableRows(page: Page, id: string): Promise<string[][]> {
  return page.evaluate(
    (t: string) => ([...document.querySelectorAll(`#panel-calibration table#${t} tbody tr`)] as any[]).map((tr) => ([...tr.querySelectorAll('td')] as any[]).map((td) => td.textContent.trim())),
    id,
  );
}

const ci = (k: number | null) => `${num(k)} [`;

describe.skipIf(!HAVE_CHROMIUM)('calibration page: the panel section in chromium', () => {
  let page: Page;
  const errors: string[] = [];
  beforeAll(async () => {
    [f, browser] = await Promise.all([
      startWebFixture(),
      chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-component-update', '--disable-sync'] }),
    ]);
    want = await expectedPanel(f.database, RUN, PANEL, MEMBERS);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    // As a visitor gets there: the page, then the section's own form.
    await page.goto(`${f.server.url}/calibration`);
    await page.selectOption('#panel', PANEL);
    await page.selectOption('#run', RUN);
    await Promise.all([page.waitForURL(/run=farmyard-describe/), page.click('#panel-calibration button[type=submit]')]);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await f?.close();
  });

  it('loads without errors and scrolls to the section', async () => {
    expect(errors).toEqual([]);
    expect(page.url()).toContain('#panel-calibration');
    expect(await page.locator('#panel-calibration').isVisible()).toBe(true);
    expect(await page.locator('#panel-heading').innerText()).toBe('A panel judge: members, vote and confidence');
  });

  it('shows the panel row and each member row against the humans, with their kappas and intervals', async () => {
    const rows = await tableRows(page, 'panel-vs-humans');
    expect(rows.map((r) => r.slice(0, 2))).toEqual([[PANEL, 'panel'], ...MEMBERS.map((m) => [m, 'member'])]);
    for (const r of rows) {
      const e = want.vsHumans[r[0]!]!;
      expect(r[2], r[0]).toBe(String(e.n));
      expect(r[3], r[0]).toBe(num(e.agreement));
      expect(r[4]!.startsWith(ci(e.kappa)), `${r[0]} kappa ${r[4]}`).toBe(true);
      expect(r[5]!.startsWith(ci(e.weightedKappa)), `${r[0]} weighted kappa ${r[5]}`).toBe(true);
    }
    const vote = await tableRows(page, 'panel-members-vs-vote');
    expect(vote.map((r) => r[0])).toEqual(MEMBERS);
    for (const r of vote) expect(r.slice(1, 4), r[0]).toEqual(['17', num(want.vsVote[r[0]!]!.agreement), expect.stringMatching(new RegExp(`^${num(want.vsVote[r[0]!]!.kappa).replace('.', '\\.')} \\[`))]);
  });

  it('shows the instability table: per item, the members’ share disagreeing with the vote', async () => {
    const rows = await tableRows(page, 'panel-instability');
    expect(rows).toHaveLength(17);
    for (const r of rows) expect([r[0], r[1], r[2]], r[0]).toEqual([r[0], num(want.instability[r[0]!]), '3']);
  });

  it('draws the reliability diagram as an SVG with the diagonal, a point per non-empty bin and its n', async () => {
    const fig = page.locator('#panel-calibration figure.chart');
    expect(await fig.count()).toBe(1);
    expect(await fig.locator('svg').count()).toBe(1);
    expect(await fig.locator('figcaption').innerText()).toMatch(/^Reliability diagram of panel-lexical/);
    const box = await fig.locator('svg').boundingBox();
    expect(box!.width).toBeGreaterThan(200);
    const labels = (await fig.locator('svg text').allTextContents()).map((t) => t.trim());
    const bins = await tableRows(page, 'panel-reliability');
    const drawn = bins.filter((b) => b[1] !== '0');
    expect(drawn.length).toBeGreaterThan(0);
    // One "n=k" label per non-empty bin, with the table's counts; the counts add up to the diagram's n.
    expect(labels.filter((t) => /^n=\d+$/.test(t)).sort()).toEqual(drawn.map((b) => `n=${b[1]}`).sort());
    expect(drawn.reduce((s, b) => s + Number(b[1]), 0)).toBe(want.humans.size);
    // The bins as shown: items, mean confidence (the vote share) and agreement with the human majority, by hand.
    expect(drawn.map((b) => b.slice(1, 4))).toEqual(want.reliability.bins.map((b) => [String(b.n), num(b.meanConfidence), num(b.agreement)]));
    expect(await page.locator('#t-panel-reliability').innerText()).toContain(`ECE ${num(want.reliability.ece)} over ${want.reliability.n} items`);
    // Two lines: the dashed diagonal and the bins' curve.
    expect(await fig.locator('svg [aria-roledescription="line mark"]').count()).toBe(2);
  });
});
