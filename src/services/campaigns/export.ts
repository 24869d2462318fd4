import type { Database } from '../../db/client.ts';
import { STALE_CLAIM_NOTE } from '../claim-marks.ts';
import { campaignAdjudications, campaignLabels } from './campaign-labels.ts';
import { findCampaign } from './load.ts';

/** One exported row: an annotator's label, or an adjudicator's final label of a unit. */
export interface ExportRow {
  campaign: string;
  answer_id: number;
  answer: string;
  run: string;
  model: string;
  unit: string;
  rater: string;
  source: 'annotator' | 'adjudication';
  label: string;
  /** The campaign a label was given in (empty when given outside any, e.g. imported). */
  campaign_id: number | null;
  note: string | null;
  created_at: string;
}

export const EXPORT_COLUMNS: ReadonlyArray<keyof ExportRow> = [
  'campaign', 'answer_id', 'answer', 'run', 'model', 'unit', 'rater', 'source', 'label', 'campaign_id', 'note', 'created_at',
];

/** Every label of the campaign's annotators on its answers, then the adjudications, for CSV or JSON. */
export async function exportCampaign(database: Database, ref: number | string): Promise<{ campaign: string; rows: ExportRow[] }> {
  const campaign = await findCampaign(database.db, ref);
  const labels = await campaignLabels(database.db, campaign);
  const adjudications = await campaignAdjudications(database.db, campaign);
  const answers = new Map(labels.map((l) => [l.answerId, l]));
  const rows: ExportRow[] = labels.map((l) => ({
    campaign: campaign.name,
    answer_id: l.answerId,
    answer: l.answer,
    run: l.run,
    model: l.model,
    unit: l.unit,
    rater: l.annotator,
    source: 'annotator',
    label: l.label,
    campaign_id: l.campaignId,
    // A claim mark given on another sentence than today's sentence n is said so, never passed off as a mark of it.
    note: l.stale ? STALE_CLAIM_NOTE : null,
    created_at: l.createdAt,
  }));
  for (const a of adjudications) {
    const l = answers.get(a.answerId);
    rows.push({
      campaign: campaign.name,
      answer_id: a.answerId,
      answer: l?.answer ?? '',
      run: l?.run ?? '',
      model: l?.model ?? '',
      unit: a.unit,
      rater: a.adjudicator,
      source: 'adjudication',
      label: a.label,
      campaign_id: campaign.id,
      note: a.note,
      created_at: a.createdAt,
    });
  }
  return { campaign: campaign.name, rows };
}
