import { tracedWork } from '../../judges/telemetry.ts';

/**
 * The span of one `assay run` (when tracing is on: src/telemetry.ts): the parent of every judge call its
 * in-process worker makes, so a trace shows a run's calls under it. A no-op when tracing is off.
 */
export function tracedRun<T>(q: { run: string; judge: string; gradingRunId: number }, work: () => Promise<T>, after?: (v: T) => Record<string, number | string>): Promise<T> {
  return tracedWork(`assay.run ${q.run}`, { 'assay.run': q.run, 'assay.judge.ref': q.judge, 'assay.grading_run.id': q.gradingRunId }, work, after);
}
