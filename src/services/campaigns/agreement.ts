import type { Database } from '../../db/client.ts';
import { calibrate, type CalibrationReport } from '../../analysis/calibration/index.ts';
import { isAssayError } from '../../domain/errors.ts';
import type { CampaignScales } from '../../domain/campaigns.ts';
import type { LabelScale } from '../../domain/labels.ts';
import { calibrationLabelSet, rowsOnScale } from '../grading/calibration-labels.ts';
import { exampleAnswers } from '../grading/example-exclusion.ts';
import { versionNotes } from '../grading/label-versions.ts';
import { errorAnswersNote } from '../error-answers.ts';
import { campaignLabels } from './campaign-labels.ts';
import { findCampaign } from './load.ts';
import { rowsOf } from './sql.ts';
import { sql } from 'drizzle-orm';

/** The calibration scales a campaign's scales feed (claim marks are not calibration units). */
const CALIBRATION_SCALES: ReadonlyArray<[keyof CampaignScales, LabelScale]> = [
  ['verdict', 'verdict'],
  ['binary', 'binary'],
  ['numeric', 'numeric'],
];

export interface ScaleAgreement {
  scale: LabelScale;
  /** Human–human alpha and pairwise kappas, judge–human kappas, all with intervals; null when nothing to compare yet. */
  report: CalibrationReport | null;
  reason?: string;
}

/**
 * Agreement of a campaign so far, per scale, through the same pure calibration as `assay calibrate`:
 * the campaign annotators' labels of its answers beside every judge's newest grades of them.
 */
export async function campaignAgreement(database: Database, ref: number | string, opts: { seed?: number } = {}): Promise<ScaleAgreement[]> {
  const campaign = await findCampaign(database.db, ref);
  const ids = new Set(
    (await rowsOf<{ id: number }>(database.db, sql`select answer_id as id from campaign_answers where campaign_id = ${campaign.id}`)).map((r) => String(r.id)),
  );
  // The campaign's labels are campaignLabels' (holders only: never more than k people a unit), the
  // same ones its disagreements, export and `assay analyze ratings --campaign` read.
  const held = new Set((await campaignLabels(database.db, campaign)).map((l) => `${l.answerId}\u0000${l.annotator}`));
  // An anchored judge's example answers are out of its figures (calibrationLabelSet drops them): said, per
  // judge, on the scales a rubric judge has a side of (an anchored judge is one; binary is a reference-match judge's).
  const answersOf = { ...(campaign.spec.answers.run ? { run: campaign.spec.answers.run } : {}), ...(campaign.spec.answers.model ? { model: campaign.spec.answers.model } : {}) };
  const examples = [...(await exampleAnswers(database, { key: 'answerId', ...answersOf }))].flatMap(([judge, shown]) => {
    const n = [...shown].filter((a) => ids.has(a)).length;
    return n ? [`judge '${judge}': ${n} answer(s) of the campaign it was shown as examples are left out of its figures (the people's labels stay)`] : [];
  });
  const out: ScaleAgreement[] = [];
  for (const [own, scale] of CALIBRATION_SCALES) {
    if (!campaign.spec.scales[own]) continue;
    // The campaign's own labels (a plain one where it has none of the holder's), never another campaign's.
    const set = await calibrationLabelSet(database, { key: 'answerId', scale, campaign: campaign.id, ...answersOf });
    const all = set.rows;
    // Each scale reads its own labels only: a campaign's item verdicts are no binary labels (rowsOnScale).
    const rows = rowsOnScale(all, scale).kept.filter((r) => ids.has(r.answer) && (r.kind === 'judge' || held.has(`${r.answer}\u0000${r.rater}`)));
    if (!rows.some((r) => r.kind === 'human')) {
      out.push({ scale, report: null, reason: 'no labels yet' });
      continue;
    }
    try {
      const report = calibrate(rows, { scale, seed: opts.seed ?? 1, source: `campaign ${campaign.name}` });
      // Labels left out (or kept unchecked) for the rubric version they were given against, and the error
      // answers' labels and grades (calibrationLabelSet leaves them out), are said, never dropped unsaid.
      out.push({ scale, report: { ...report, notes: [...report.notes, ...versionNotes(set.versions, 'campaign'), ...(scale === 'binary' ? [] : examples), ...errorAnswersNote(set.errorAnswers)] } });
    } catch (e) {
      if (!isAssayError(e)) throw e;
      out.push({ scale, report: null, reason: e.message });
    }
  }
  return out;
}
