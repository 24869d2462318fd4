import type { Database } from '../db/client.ts';
import type { CalibrationReport } from '../analysis/calibration/index.ts';
import type { LabelRow, LabelScale } from '../domain/labels.ts';
import { rowsOnScale } from './grading/calibration-labels.ts';
import { calibrationRowSet, type JudgeNotes } from './report-analysis.ts';
import { versionNotes } from './grading/label-versions.ts';
import type { HumansMode } from '../domain/campaigns.ts';
import { exampleAnswers, excludedByJudge } from './grading/example-exclusion.ts';
import { baselineNotes } from './report-data.ts';
import { CLAIM_PREFIX } from './web-annotation.ts';
import { runInThread, taskModule } from '../threads/pool.ts';
import { CALIBRATION_TABLES, cachedReport, memoLast, reportKey } from './report-cache.ts';

const REPORT_TASKS = taskModule('report-tasks', import.meta.url);

/**
 * Calibration for the page: the stored rows of the scale only. Claim marks (item `claim:<n>`) and labels
 * of another scale (say, a binary whole-answer label while reading the verdict scale) are set aside and
 * counted, instead of failing the whole report on the first foreign label.
 */
export interface PageCalibration {
  report: CalibrationReport | null;
  reason?: string;
  skipped: number;
  /** The report's judges that are the lexical baseline, with the note to show. */
  judgeNotes: JudgeNotes;
  /** Per anchored judge, the answers left out of its figures because it was shown them as examples. */
  excludedExamples: Record<string, number>;
}

export function rowsOfScale(rows: readonly LabelRow[], scale: LabelScale): { kept: LabelRow[]; skipped: number } {
  // The one scale rule (calibration-labels.ts), claim marks aside: they are item-keyed but not verdicts.
  const { kept } = rowsOnScale(rows.filter((r) => !r.item?.startsWith(CLAIM_PREFIX)), scale);
  return { kept, skipped: rows.length - kept.length };
}

/** Cached per version of the tables it reads (report-cache.ts CALIBRATION_TABLES); the calibration (its bootstraps) runs on the report thread. */
export async function pageCalibration(database: Database, opts: { scale: LabelScale; judge?: string; seed?: number; humans?: HumansMode }): Promise<PageCalibration> {
  const input = { scale: opts.scale, seed: opts.seed ?? 1, ...(opts.judge ? { judge: opts.judge } : {}), ...(opts.humans && opts.humans !== 'each' ? { humans: opts.humans } : {}) };
  return cachedReport(database, reportKey('page-calibration', input), async () => {
    const { rows, versions } = await calibrationRowSet(database, opts.scale, opts.judge ? { judge: opts.judge } : {}, opts.humans);
    // Reused while the rows equal the last ones (report-analysis.ts calibrationReport says why).
    const task = { rows, ...input };
    const r = await memoLast(reportKey('page-calibrate', input), task, () => runInThread<Omit<PageCalibration, 'judgeNotes' | 'excludedExamples'>>(REPORT_TASKS, 'pageCalibrationTask', task));
    const excludedExamples = excludedByJudge(await exampleAnswers(database, { key: 'answerId', judges: opts.judge ? [opts.judge] : null }));
    // Rows left out (or kept unchecked) for their rubric version are said in the report's notes (label-versions.ts).
    const report = r.report ? { ...r.report, notes: [...r.report.notes, ...versionNotes(versions)] } : null;
    return { ...r, report, judgeNotes: report ? await baselineNotes(database, report.judges) : {}, excludedExamples };
  }, CALIBRATION_TABLES);
}
