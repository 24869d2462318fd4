import { reliabilityChart } from '../reliability-chart.ts';
import type { ReliabilityChartInput } from './calibration-panel-charts.ts';

/**
 * The panel section's reliability-diagram task, run on the report thread only (apart from
 * calibration-panel-charts.ts so that the pages, loaded at every server start, do not load vega).
 */
export const reliabilityDiagrams = (inputs: ReliabilityChartInput[]): Promise<string[]> => Promise.all(inputs.map((x) => reliabilityChart(x.bins, x.o)));
