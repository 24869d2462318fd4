import { memoByContent } from '../../services/content-memo.ts';
import { runInThread, taskModule } from '../../threads/pool.ts';
import type { ReliabilityPoint } from '../reliability-chart.ts';

/**
 * The panel section's reliability diagrams, rendered as the report pages' charts are (report-charts.ts):
 * on the report thread, remembered by the content of their input. `reliabilityDiagrams`
 * (calibration-panel-chart-tasks.ts) is the task the thread runs; `reliabilityCharts` is what the page calls.
 */

export interface ReliabilityChartInput {
  bins: ReliabilityPoint[];
  o: { xTitle: string; yTitle: string };
}

const TASKS = taskModule('calibration-panel-chart-tasks', import.meta.url);

/** SVG markup of each diagram in `inputs`, in order. */
export function reliabilityCharts(inputs: ReliabilityChartInput[]): Promise<string[]> {
  if (inputs.length === 0) return Promise.resolve([]);
  return memoByContent('chart:reliability', inputs, () => runInThread<string[]>(TASKS, 'reliabilityDiagrams', inputs));
}
