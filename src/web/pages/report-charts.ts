import { memoEachByContent } from '../../services/content-memo.ts';
import { runInThread, taskModule } from '../../threads/pool.ts';
import type { ColourScale, DotPoint, IntervalPoint } from '../charts.ts';

/**
 * The report pages' charts. vega renders one chart in tens of milliseconds of CPU, so the pages ask
 * for them through `chart(...)`: rendered on the report thread (src/threads), and each remembered by the
 * content of its input, so a page over unchanged data renders none at all and a page whose data moved in
 * one chart renders that one. The task functions run on that thread (report-chart-tasks.ts, apart so
 * that the pages do not load vega on the main thread); they take and return plain data. Every chart of a model takes its
 * colours from the page's model map (model-colours.ts, over every model stored), so a model has one colour
 * on every chart.
 */

export interface DotChartInput {
  points: DotPoint[];
  o: { xTitle: string; yTitle: string; xOrder: string[]; yDomain?: [number, number]; colours: ColourScale };
}
export interface HeatmapInput {
  categories: string[];
  matrix: number[][];
  o: { rowTitle: string; colTitle: string };
}
export interface IntervalInput {
  points: IntervalPoint[];
  o: { measures: string[]; xTitle: string; colours: ColourScale };
}

const TASKS = taskModule('report-chart-tasks', import.meta.url);

type ChartTask = 'dotCharts' | 'heatmaps' | 'intervalCharts';

/** SVG markup of each chart in `inputs`, in order (one thread round trip for the whole page). */
export function charts(task: 'dotCharts', inputs: DotChartInput[]): Promise<string[]>;
export function charts(task: 'heatmaps', inputs: HeatmapInput[]): Promise<string[]>;
export function charts(task: 'intervalCharts', inputs: IntervalInput[]): Promise<string[]>;
export function charts(task: ChartTask, inputs: unknown[]): Promise<string[]> {
  if (inputs.length === 0) return Promise.resolve([]);
  // Each chart remembered by its own input: after a regrade only the charts whose points moved render.
  return memoEachByContent(`chart:${task}`, inputs, (missing) => runInThread<string[]>(TASKS, task, missing));
}
