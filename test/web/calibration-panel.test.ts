// The app first: domain/labels.ts must be loaded after @hono/zod-openapi extends zod (src/api/routes/calibrate.ts).
import { startWebFixture, type WebFixture } from './web-fixture.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { num } from '../../src/web/format.ts';
import { expectedPanel, type ExpectedPanel } from './calibration-panel-expected.ts';

/**
 * The calibration page's panel section over HTTP (no browser), on the bundled examples: the seed's
 * baseline panel (judges/panel-lexical.yaml) on run farmyard-describe, whose one answer has four human
 * annotators (the seed's two and the fixture's two). Every figure is checked against expectedPanel,
 * which rebuilds it from the stored labels and grades with src/stats.
 */

const PANEL = 'panel-lexical';
const MEMBERS = ['lexical', 'lexical-strict', 'lexical-lenient'];
const RUN = 'farmyard-describe';
const Q = `/calibration?panel=${PANEL}&run=${RUN}`;

let f: WebFixture;
let want: ExpectedPanel;
beforeAll(async () => {
  f = await startWebFixture();
  want = await expectedPanel(f.database, RUN, PANEL, MEMBERS);
}, 240_000);
afterAll(async () => {
  await f?.close();
});

const get = (path: string) => fetch(f.server.url + path, { headers: { accept: 'text/html' } });
const rows = async (table: string, q = Q) => ((await (await get(`${q}&table=${table}&format=json`)).json()) as { rows: Array<Record<string, unknown>> }).rows;

describe('calibration page: a panel judge', () => {
  it('the seeded panel votes the majority of its three members on every item (ties to the verdict worth fewer points)', () => {
    const vote = want.verdicts[PANEL]!;
    expect(vote.size).toBe(17);
    for (const [key, v] of vote) {
      const given = MEMBERS.map((m) => want.verdicts[m]!.get(key)!);
      const count = given.filter((g) => g === v).length;
      // Three members and one sample each: the vote has two or three votes, or is a three-way tie broken down.
      if (count < 2) expect(new Set(given).size, key).toBe(3);
    }
    // The members disagree somewhere (else instability and member-vs-vote would be trivial).
    expect(Object.values(want.instability).some((x) => x > 0)).toBe(true);
  });

  it('shows the panel beside each member against the human majority, with the kappas the labels give', async () => {
    const got = await rows('panel-vs-humans');
    expect(got.map((r) => [r.judge, r.role])).toEqual([[PANEL, 'panel'], ...MEMBERS.map((m) => [m, 'member'])]);
    for (const r of got) {
      const e = want.vsHumans[String(r.judge)]!;
      // 17 items, 4 annotators: items where the top human labels tie have no majority and are left out.
      expect(r.n, String(r.judge)).toBe(e.n);
      expect(e.n).toBe(want.humans.size);
      expect(r.agreement as number).toBeCloseTo(e.agreement, 12);
      expect(r.kappa as number).toBeCloseTo(e.kappa!, 12);
      expect(r.weightedKappa as number).toBeCloseTo(e.weightedKappa!, 12);
      expect(r.kappaLow as number).toBeLessThan(r.kappa as number);
      expect(r.kappaHigh as number).toBeGreaterThan(r.kappa as number);
    }
    const html = await (await get(Q)).text();
    const section = html.slice(html.indexOf('id="panel-calibration"'));
    expect(section).toContain(`${num(want.vsHumans[PANEL]!.kappa)} [`);
    for (const m of MEMBERS) expect(section).toContain(`${num(want.vsHumans[m]!.weightedKappa)} [`);
  });

  it('shows each member against the vote, and per-item instability as the members’ share disagreeing with it', async () => {
    const vote = await rows('panel-members-vs-vote');
    expect(vote.map((r) => r.member)).toEqual(MEMBERS);
    for (const r of vote) {
      const e = want.vsVote[String(r.member)]!;
      expect(r.n).toBe(17);
      expect(r.agreement as number).toBeCloseTo(e.agreement, 12);
      expect(r.kappa as number).toBeCloseTo(e.kappa!, 12);
      expect(r.weightedKappa as number).toBeCloseTo(e.weightedKappa!, 12);
    }
    const inst = await rows('panel-instability');
    expect(inst).toHaveLength(17);
    for (const r of inst) {
      expect(r.samples, String(r.item)).toBe(3);
      expect(r.answers).toBe(1);
      expect(r.instability as number).toBeCloseTo(want.instability[String(r.item)]!, 12);
    }
  });

  it('shows the reliability table: ten confidence bins, the vote share as confidence, agreement with the human majority and the ECE', async () => {
    const bins = await rows('panel-reliability');
    expect(bins.map((b) => [b.lo, b.hi])).toEqual(Array.from({ length: 10 }, (_, i) => [i / 10, (i + 1) / 10]));
    const filled = bins.flatMap((b, index) => (Number(b.n) > 0 ? [{ index, n: b.n, meanConfidence: b.meanConfidence, agreement: b.agreement }] : []));
    expect(filled.map((b) => [b.index, b.n])).toEqual(want.reliability.bins.map((b) => [b.index, b.n]));
    filled.forEach((b, i) => {
      expect(b.meanConfidence as number).toBeCloseTo(want.reliability.bins[i]!.meanConfidence, 12);
      expect(b.agreement as number).toBeCloseTo(want.reliability.bins[i]!.agreement, 12);
    });
    // Three members, one sample: the vote share is 1/3, 2/3 or 1, so only bins 3, 6 and 9 can fill.
    expect(filled.every((b) => [3, 6, 9].includes(b.index))).toBe(true);
    expect(want.reliability.n).toBe(want.humans.size);
    const html = await (await get(Q)).text();
    expect(html).toContain(`ECE ${num(want.reliability.ece)} over ${want.reliability.n} items`);
    expect(html).toMatch(/<figure class="chart">[\s\S]*?<svg[\s\S]*?Reliability diagram of panel-lexical/);
  });

  it('says the panel is a baseline, and keeps the page’s own report above the section', async () => {
    const html = await (await get(Q)).text();
    expect(html).toContain('Each judge against the human majority');
    expect(html.indexOf('Each judge against the human majority')).toBeLessThan(html.indexOf('id="panel-calibration"'));
    expect(html).toMatch(/baseline panel for showing these figures offline, a floor — not a judge to trust|baseline panel for showing these figures offline, a floor &#8212; not a judge to trust/);
    expect(html).toContain(`<option value="${RUN}" selected="">`);
  });

  it('without a choice shows the first panel on its first run; an unknown panel or run is said in place', async () => {
    const html = await (await get('/calibration')).text();
    expect(html).toContain(`<option value="${PANEL}" selected="">`);
    // Every labelled run has one labelled answer; the first by name is chosen.
    expect(html).toContain('<option value="campaign-model-a-high" selected="">');
    const notPanel = await get('/calibration?panel=lexical');
    expect(notPanel.status).toBe(200);
    expect(await notPanel.text()).toContain('&#39;lexical&#39; is not a panel judge that graded an answer humans labelled');
    const noRun = await (await get(`/calibration?panel=${PANEL}&run=grid-examples`)).text();
    expect(noRun).toContain(`panel &#39;${PANEL}&#39; graded no answer of run &#39;grid-examples&#39; that humans labelled`);
  });
});
