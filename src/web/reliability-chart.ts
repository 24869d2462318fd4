import type { TopLevelSpec } from 'vega-lite';
import { renderVegaLite } from './charts.ts';

/**
 * A reliability diagram (the calibration page's panel section): per confidence bin, the bin's mean
 * confidence against the share of its items where the human majority agrees with the judge, each point
 * labelled with the bin's n, over the diagonal a perfectly calibrated judge would lie on. Bins with no
 * item are not drawn (they have no mean). Rendered like every chart (charts.ts): vega escapes its text.
 */

export interface ReliabilityPoint {
  lo: number;
  hi: number;
  n: number;
  meanConfidence: number | null;
  agreement: number | null;
}

export function reliabilityChart(bins: readonly ReliabilityPoint[], o: { xTitle: string; yTitle: string }): Promise<string> {
  const values = bins.filter((b) => b.n > 0 && b.meanConfidence !== null && b.agreement !== null).map((b) => ({ ...b, label: `n=${b.n}` }));
  const x = { field: 'meanConfidence', type: 'quantitative', title: o.xTitle, scale: { domain: [0, 1] } } as const;
  const y = { field: 'agreement', type: 'quantitative', title: o.yTitle, scale: { domain: [0, 1] } } as const;
  return renderVegaLite({
    width: 320,
    height: 320,
    layer: [
      {
        // The diagonal: confidence equal to the agreement with humans.
        data: { values: [{ c: 0, a: 0 }, { c: 1, a: 1 }] },
        mark: { type: 'line', strokeDash: [4, 4], color: '#6e7781' },
        encoding: { x: { field: 'c', type: 'quantitative', scale: { domain: [0, 1] }, title: o.xTitle }, y: { field: 'a', type: 'quantitative', scale: { domain: [0, 1] }, title: o.yTitle } },
      },
      { data: { values }, mark: { type: 'line', point: { filled: true, size: 60 }, color: '#0969da' }, encoding: { x, y } },
      { data: { values }, mark: { type: 'text', dy: -10, fontSize: 11, color: '#1f2328' }, encoding: { x, y, text: { field: 'label', type: 'nominal' } } },
    ],
  } as unknown as TopLevelSpec);
}
