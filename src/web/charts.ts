import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/**
 * Charts rendered on the server: vega-lite spec → vega → SVG markup (renderer 'none', no DOM). vega
 * escapes every text it writes (axis labels, legends, titles), which test/web/charts.test.ts checks
 * with a model named like a script tag, so the markup can be inlined into pages as is.
 */

const CONFIG = {
  font: 'system-ui, sans-serif',
  axis: { labelFontSize: 12, titleFontSize: 12, labelColor: '#1f2328', titleColor: '#1f2328' },
  legend: { labelFontSize: 12, titleFontSize: 12, labelColor: '#1f2328', titleColor: '#1f2328', labelLimit: 260 },
  view: { stroke: '#d0d7de' },
  background: '#ffffff',
};

export async function renderVegaLite(spec: TopLevelSpec): Promise<string> {
  const compiled = compile({ config: CONFIG, ...spec } as TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export interface LinePoint {
  series: string;
  x: string;
  y: number;
  low?: number | null;
  high?: number | null;
}

/** One line per series over an ordered category axis, with interval bars where low/high are known. */
export function lineChart(points: readonly LinePoint[], o: { xTitle: string; yTitle: string; xOrder: readonly string[]; yDomain?: [number, number] }): Promise<string> {
  const values = points.map((p) => ({ ...p, low: p.low ?? null, high: p.high ?? null }));
  const x = { field: 'x', type: 'ordinal', title: o.xTitle, sort: [...o.xOrder], axis: { labelAngle: 0 } } as const;
  const y = { type: 'quantitative', title: o.yTitle, ...(o.yDomain ? { scale: { domain: o.yDomain } } : {}) } as const;
  const color = { field: 'series', type: 'nominal', title: 'model', scale: { scheme: 'tableau10' } } as const;
  return renderVegaLite({
    width: 420,
    height: 220,
    data: { values },
    layer: [
      { mark: { type: 'line', point: { filled: true, size: 50 } }, encoding: { x, y: { ...y, field: 'y' }, color } },
      {
        transform: [{ filter: 'datum.low !== null && datum.high !== null' }],
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: { x, y: { ...y, field: 'low' }, y2: { field: 'high' }, color },
      },
    ],
  } as TopLevelSpec);
}

/** A confusion matrix as a heatmap: rows are the judge's label, columns the human majority. */
export function heatmap(categories: readonly string[], matrix: readonly (readonly number[])[], o: { rowTitle: string; colTitle: string }): Promise<string> {
  const values = matrix.flatMap((row, i) => row.map((n, j) => ({ row: categories[i]!, col: categories[j]!, n })));
  const max = Math.max(1, ...values.map((v) => v.n));
  const axis = (field: string, title: string) => ({ field, type: 'ordinal', title, sort: [...categories] }) as const;
  return renderVegaLite({
    width: 60 * categories.length,
    height: 40 * categories.length,
    data: { values },
    encoding: { x: { ...axis('col', o.colTitle), axis: { labelAngle: 0, orient: 'top' } }, y: axis('row', o.rowTitle) },
    layer: [
      { mark: 'rect', encoding: { color: { field: 'n', type: 'quantitative', title: 'count', scale: { scheme: 'blues', domain: [0, max] } } } },
      {
        mark: { type: 'text', fontSize: 13 },
        encoding: {
          text: { field: 'n', type: 'quantitative' },
          color: { condition: { test: `datum.n > ${max / 2}`, value: '#ffffff' }, value: '#1f2328' },
        },
      },
    ],
  } as TopLevelSpec);
}

export interface IntervalPoint {
  group: string;
  measure: string;
  estimate: number;
  low: number | null;
  high: number | null;
}

/** Proportions with their intervals: one row per group, one offset point and bar per measure. */
export function intervalChart(points: readonly IntervalPoint[], o: { measures: readonly string[]; xTitle: string }): Promise<string> {
  const groups = [...new Set(points.map((p) => p.group))];
  const y = { field: 'group', type: 'nominal', title: null, sort: groups } as const;
  const yOffset = { field: 'measure', type: 'nominal', sort: [...o.measures] } as const;
  const color = { field: 'measure', type: 'nominal', title: null, sort: [...o.measures], scale: { scheme: 'tableau10' } } as const;
  const x = { type: 'quantitative', title: o.xTitle, scale: { domain: [0, 1] } } as const;
  return renderVegaLite({
    width: 420,
    // With yOffset, the step is that of one measure inside a group.
    height: { step: 18 } as unknown as number,
    data: { values: points },
    layer: [
      {
        transform: [{ filter: 'datum.low !== null && datum.high !== null' }],
        mark: { type: 'rule', strokeWidth: 2 },
        encoding: { y, yOffset, x: { ...x, field: 'low' }, x2: { field: 'high' }, color },
      },
      { mark: { type: 'point', filled: true, size: 60 }, encoding: { y, yOffset, x: { ...x, field: 'estimate' }, color } },
    ],
  } as unknown as TopLevelSpec);
}
