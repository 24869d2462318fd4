import type { LabelRow, LabelScale } from '../domain/labels.ts';
import { rowsOnScale } from './grading/calibration-labels.ts';
import { storedCalibration, type StoredCalibration, type StoredCalibrationOptions } from './report-analysis.ts';
import { CLAIM_PREFIX } from './web-annotation.ts';
import type { Database } from '../db/client.ts';

/**
 * Calibration for the page: the stored calibration of GET /api/reports/calibration (report-analysis.ts
 * storedCalibration, one rule for both). Claim marks (item `claim:<n>`) and labels of another scale (say,
 * a binary whole-answer label while reading the verdict scale) are set aside and counted, instead of
 * failing the whole report on the first foreign label.
 */
export type PageCalibration = StoredCalibration;

export function rowsOfScale(rows: readonly LabelRow[], scale: LabelScale): { kept: LabelRow[]; skipped: number } {
  // The one scale rule (calibration-labels.ts), claim marks aside: they are item-keyed but not verdicts.
  const { kept } = rowsOnScale(rows.filter((r) => !r.item?.startsWith(CLAIM_PREFIX)), scale);
  return { kept, skipped: rows.length - kept.length };
}

export function pageCalibration(database: Database, opts: StoredCalibrationOptions): Promise<PageCalibration> {
  return storedCalibration(database, opts);
}
