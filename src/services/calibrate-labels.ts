import { calibrate, type CalibrationReport } from '../analysis/calibration/index.ts';
import { labelRowsFromInput, type LabelRowInput, type LabelScale } from '../domain/labels.ts';
import { badInput } from '../domain/errors.ts';
import type { HumansMode } from '../domain/campaigns.ts';
import { applyHumans } from './campaigns/humans.ts';
import { excludeFileExamples } from './grading/file-example-exclusion.ts';

/**
 * `POST /api/calibrate`: the `assay calibrate --labels FILE` report over label rows in a request body,
 * nothing stored or read but the judge files (an anchored judge's examples are left out, as from the file).
 * Messages name the row (`labels: row 3: …`), as the file form names the line.
 */
export interface LabelSetCalibration {
  labels: readonly LabelRowInput[];
  scale: LabelScale;
  judge?: string | undefined;
  seed?: number | undefined;
  weights?: Record<string, number> | undefined;
  /** The human side (`assay calibrate --humans`); a body has no adjudications, so `adjudicated` is bad input, as with --labels. */
  humans?: HumansMode | undefined;
}

/** The report with, per anchored judge, its example answers of the body left out (file-example-exclusion.ts), as `assay calibrate --labels` gives it. */
export type LabelSetReport = CalibrationReport & { excludedExamples: Record<string, number> };

export function calibrateLabelSet(q: LabelSetCalibration, judgesDir?: string): LabelSetReport {
  // A judge's rows of the answers it was shown as examples measure copying: left out, as from the file.
  if (q.humans === 'adjudicated') throw badInput('humans: adjudicated needs stored labels (adjudications are stored with the campaigns): GET /api/reports/calibration?humans=adjudicated');
  const { rows: kept, excludedExamples, notes } = excludeFileExamples(labelRowsFromInput(q.labels), null, judgesDir);
  // The human side as asked, after the judges' examples are left out: the order of `assay calibrate --labels --humans`.
  const rows = q.humans === undefined || q.humans === 'each' ? kept : applyHumans(kept, q.humans, [], q.scale);
  const report = calibrate(rows, {
    scale: q.scale,
    source: 'labels',
    ...(q.judge !== undefined ? { judge: q.judge } : {}),
    ...(q.seed !== undefined ? { seed: q.seed } : {}),
    ...(q.weights !== undefined ? { weights: q.weights } : {}),
  });
  return { ...report, notes: [...report.notes, ...notes], excludedExamples };
}
