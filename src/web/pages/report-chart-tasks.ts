import { dotIntervalChart, heatmap, intervalChart } from '../charts.ts';
import type { DotChartInput, HeatmapInput, IntervalInput } from './report-charts.ts';

/**
 * The report pages' chart tasks, run on the report thread (src/threads) only. They live apart from
 * report-charts.ts, which the pages import, so that loading the pages (every server start) does not load
 * vega and vega-lite (about 1.5 MB of JavaScript) on the main thread: only the thread that renders needs them.
 */

export const dotCharts = (inputs: DotChartInput[]): Promise<string[]> => Promise.all(inputs.map((x) => dotIntervalChart(x.points, x.o)));
export const heatmaps = (inputs: HeatmapInput[]): Promise<string[]> => Promise.all(inputs.map((x) => heatmap(x.categories, x.matrix, x.o)));
export const intervalCharts = (inputs: IntervalInput[]): Promise<string[]> => Promise.all(inputs.map((x) => intervalChart(x.points, x.o)));
