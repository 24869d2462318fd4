import { describe, expect, it } from 'vitest';
import { heatmap, intervalChart, lineChart } from '../../src/web/charts.ts';

const HOSTILE = '<script>alert("x")</script>&';

describe('server-rendered charts', () => {
  it('line chart: one path per series, escaped model names in the legend, interval rules', async () => {
    const svg = await lineChart(
      [
        { series: HOSTILE, x: '~50', y: 0.4, low: 0.3, high: 0.5 },
        { series: HOSTILE, x: 'all', y: 0.6, low: 0.5, high: 0.7 },
        { series: 'model-b', x: '~50', y: 0.2 },
        { series: 'model-b', x: 'all', y: 0.25 },
      ],
      { xTitle: 'size', yTitle: 'F1', xOrder: ['~50', '~100', 'all'], yDomain: [0, 1] },
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).toContain('model-b');
    expect(svg).not.toMatch(/\sstyle=/);
    // Two series → two line paths; two interval rules (model-b has none).
    expect(svg.match(/aria-roledescription="line mark"/g)?.length).toBe(2);
    const rules = svg.split('class="mark-rule role-mark')[1] ?? '';
    expect(rules.match(/<line /g)?.length).toBe(2);
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
      { measures: ['P(P✓)', 'P(A✓|P✓)'], xTitle: 'probability' },
    );
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;');
  });
});
