import { describe, expect, it } from 'vitest';
import { dotIntervalChart, heatmap, intervalChart } from '../../src/web/charts.ts';

const HOSTILE = '<script>alert("x")</script>&';

describe('server-rendered charts', () => {
  it('dot-and-interval chart: no line across categories, one dot per point in its model colour, small-n dots hollow without a bar', async () => {
    const colours = { domain: [HOSTILE, 'model-b'], range: ['#4e79a7', '#f28e2b'] };
    const svg = await dotIntervalChart(
      [
        { series: HOSTILE, x: '~50', y: 0.4, low: 0.3, high: 0.5 },
        { series: HOSTILE, x: 'all', y: 0.6, low: 0.5, high: 0.7 },
        { series: 'model-b', x: '~50', y: 0.2, low: 0.2, high: 0.2, small: true },
        { series: 'model-b', x: 'all', y: 0.25 },
      ],
      { xTitle: 'size', yTitle: 'F1', xOrder: ['~50', 'all'], yDomain: [0, 1], colours },
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).not.toMatch(/\sstyle=/);
    expect(svg).not.toContain('line mark');
    // Two interval rules: model-b has none at "all" and its small-n point at "~50" loses its bar.
    const rules = svg.split('class="mark-rule role-mark')[1]?.split('</g>')[0] ?? '';
    expect(rules.match(/<line /g)?.length).toBe(2);
    // Three filled dots and one hollow (no fill of its own under the root's fill="none", a stroke), each in its series' colour.
    const symbols = [...svg.matchAll(/<path [^>]*aria-roledescription="point"[^>]*>/g)].map((m) => m[0]);
    const filled = symbols.filter((p) => /fill="#/.test(p)).map((p) => /fill="(#[0-9a-f]+)"/.exec(p)![1]);
    expect(svg).toMatch(/^<svg[^>]*>(<rect[^>]*\/>)?<g fill="none"/);
    const hollow = symbols.filter((p) => !/fill=/.test(p)).map((p) => /stroke="(#[0-9a-f]+)"/.exec(p)![1]);
    expect(filled.sort()).toEqual(['#4e79a7', '#4e79a7', '#f28e2b']);
    expect(hollow).toEqual(['#f28e2b']);
  });

  it('heatmap: one cell per matrix entry with its count', async () => {
    const svg = await heatmap(['correct', 'partial'], [[5, 1], [2, 7]], { rowTitle: 'judge', colTitle: 'human majority' });
    const texts = [...svg.matchAll(/<text[^>]*>(\d+)<\/text>/g)].map((m) => Number(m[1]));
    expect(texts).toEqual(expect.arrayContaining([5, 1, 2, 7]));
    expect(svg).toContain('human majority');
  });

  it('interval chart escapes group names', async () => {
    const svg = await intervalChart(
      [
        { group: HOSTILE, measure: 'P(P✓)', estimate: 0.5, low: 0.3, high: 0.7 },
        { group: HOSTILE, measure: 'P(A✓|P✓)', estimate: 0.8, low: null, high: null },
      ],
      { measures: ['P(P✓)', 'P(A✓|P✓)'], xTitle: 'probability', colours: { domain: [HOSTILE], range: ['#4e79a7'] } },
    );
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;');
  });
});
