import type { Database } from '../db/client.ts';
import { calibrate, type CalibrationReport } from '../analysis/calibration/index.ts';
import { normaliseLabel, type LabelRow, type LabelScale } from '../domain/labels.ts';
import { calibrationRows, type JudgeNotes } from './report-analysis.ts';
import { baselineNotes } from './report-data.ts';
import { CLAIM_PREFIX } from './web-annotation.ts';

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
}

export function rowsOfScale(rows: readonly LabelRow[], scale: LabelScale): { kept: LabelRow[]; skipped: number } {
  const kept: LabelRow[] = [];
  for (const r of rows) {
    if (r.item?.startsWith(CLAIM_PREFIX)) continue;
    if (scale === 'verdict' && r.item === undefined) continue;
    if (scale !== 'verdict' && r.item !== undefined) continue;
    try {
      normaliseLabel(scale, r.label, 'label');
      kept.push(r);
    } catch {
      // not a label of this scale
    }
  }
  return { kept, skipped: rows.length - kept.length };
}

export async function pageCalibration(database: Database, opts: { scale: LabelScale; judge?: string; seed?: number }): Promise<PageCalibration> {
  const all = await calibrationRows(database, opts.scale, opts.judge ? { judge: opts.judge } : {});
  const { kept, skipped } = rowsOfScale(all, opts.scale);
  if (!kept.some((r) => r.kind === 'human')) return { report: null, reason: `no human labels on the ${opts.scale} scale yet`, skipped, judgeNotes: {} };
  try {
    const report = calibrate(kept, { scale: opts.scale, seed: opts.seed ?? 1, source: 'stored labels', ...(opts.judge ? { judge: opts.judge } : {}) });
    return { report, skipped, judgeNotes: await baselineNotes(database, report.judges) };
  } catch (e) {
    if ((e as { code?: string }).code === 'bad_input') return { report: null, reason: (e as Error).message, skipped, judgeNotes: {} };
    throw e;
  }
}
