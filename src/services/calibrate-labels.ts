import { calibrate, type CalibrationReport } from '../analysis/calibration/index.ts';
import { labelRowsFromInput, type LabelRowInput, type LabelScale } from '../domain/labels.ts';

/**
 * `POST /api/calibrate`: the `assay calibrate --labels FILE` report over label rows in a request body,
 * nothing stored or read. Messages name the row (`labels: row 3: …`), as the file form names the line.
 */
export interface LabelSetCalibration {
  labels: readonly LabelRowInput[];
  scale: LabelScale;
  judge?: string | undefined;
  seed?: number | undefined;
  weights?: Record<string, number> | undefined;
}

export function calibrateLabelSet(q: LabelSetCalibration): CalibrationReport {
  return calibrate(labelRowsFromInput(q.labels), {
    scale: q.scale,
    source: 'labels',
    ...(q.judge !== undefined ? { judge: q.judge } : {}),
    ...(q.seed !== undefined ? { seed: q.seed } : {}),
    ...(q.weights !== undefined ? { weights: q.weights } : {}),
  });
}
