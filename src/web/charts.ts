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

/** A colour scale given in full: each series its colour from the page's model map (model-colours.ts). */
export interface ColourScale {
  domain: string[];
  range: string[];
}

export interface DotPoint {
  series: string;
  x: string;
  y: number;
  low?: number | null;
  high?: number | null;
  /** Rests on too few answers for an interval (small-n.tsx): drawn hollow, without its bar. */
  small?: boolean;
}

/**
 * Dot and interval per category and series: the categories (size buckets) are not a scale, so nothing
 * joins them; the series of one category sit side by side (xOffset), each in its model's colour. A
 * small-n point is hollow and has no bar.
 */
export function dotIntervalChart(
  points: readonly DotPoint[],
  o: { xTitle: string; yTitle: string; xOrder: readonly string[]; yDomain?: [number, number]; colours: ColourScale },
): Promise<string> {
  const values = points.map((p) => ({ ...p, low: p.small ? null : (p.low ?? null), high: p.small ? null : (p.high ?? null), small: p.small === true }));
  const x = { field: 'x', type: 'ordinal', title: o.xTitle, sort: [...o.xOrder], scale: { domain: [...o.xOrder] }, axis: { labelAngle: 0 } } as const;
  const xOffset = { field: 'series', type: 'nominal', sort: [...o.colours.domain], scale: { domain: [...o.colours.domain] } } as const;
  const y = { type: 'quantitative', title: o.yTitle, ...(o.yDomain ? { scale: { domain: o.yDomain } } : {}) } as const;
  const color = { field: 'series', type: 'nominal', title: 'model', scale: { domain: [...o.colours.domain], range: [...o.colours.range] } } as const;
  return renderVegaLite({
    // With xOffset the step is one series' slot inside a category.
    width: { step: 16 } as unknown as number,
    height: 220,
    data: { values },
    layer: [
      {
        transform: [{ filter: 'datum.low !== null && datum.high !== null' }],
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: { x, xOffset, y: { ...y, field: 'low' }, y2: { field: 'high' }, color },
      },
      { transform: [{ filter: '!datum.small' }], mark: { type: 'point', filled: true, size: 55, opacity: 1 }, encoding: { x, xOffset, y: { ...y, field: 'y' }, color } },
      { transform: [{ filter: 'datum.small' }], mark: { type: 'point', filled: false, size: 55, strokeWidth: 2, opacity: 1 }, encoding: { x, xOffset, y: { ...y, field: 'y' }, color } },
    ],
  } as unknown as TopLevelSpec);
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
  /** The model: one row per model, in its colour. */
  group: string;
  measure: string;
  estimate: number;
  low: number | null;
  high: number | null;
  small?: boolean;
}

/**
 * Proportions with their intervals: one panel per measure, one row per model in the model's colour (the
 * same colour on every chart, so colour never encodes the measure). A small-n point is hollow, without
 * its bar.
 */
export function intervalChart(points: readonly IntervalPoint[], o: { measures: readonly string[]; xTitle: string; colours: ColourScale }): Promise<string> {
  const values = points.map((p) => ({ ...p, low: p.small ? null : p.low, high: p.small ? null : p.high, small: p.small === true }));
  const groups = [...new Set(points.map((p) => p.group))];
  const y = { field: 'group', type: 'nominal', title: null, sort: groups } as const;
  const color = { field: 'group', type: 'nominal', title: 'model', scale: { domain: [...o.colours.domain], range: [...o.colours.range] } } as const;
  const x = { type: 'quantitative', title: o.xTitle, scale: { domain: [0, 1] } } as const;
  return renderVegaLite({
    data: { values },
    facet: { column: { field: 'measure', type: 'nominal', sort: [...o.measures], title: null, header: { labelFontSize: 12 } } },
    spacing: 28,
    spec: {
      width: 160,
      height: { step: 20 },
      layer: [
        {
          transform: [{ filter: 'datum.low !== null && datum.high !== null' }],
          mark: { type: 'rule', strokeWidth: 2 },
          encoding: { y, x: { ...x, field: 'low' }, x2: { field: 'high' }, color },
        },
        { transform: [{ filter: '!datum.small' }], mark: { type: 'point', filled: true, size: 60, opacity: 1 }, encoding: { y, x: { ...x, field: 'estimate' }, color } },
        { transform: [{ filter: 'datum.small' }], mark: { type: 'point', filled: false, size: 60, strokeWidth: 2, opacity: 1 }, encoding: { y, x: { ...x, field: 'estimate' }, color } },
      ],
    },
  } as unknown as TopLevelSpec);
}
