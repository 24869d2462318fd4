import type { Database } from '../../db/client.ts';
import { ANSWER_SCALE_KEYS } from '../../domain/campaigns.ts';
import { CLAIM_PREFIX } from '../annotation-claims.ts';
import { campaignAdjudications, campaignLabels, type Adjudication, type CampaignLabel } from './campaign-labels.ts';
import { findCampaign, type Campaign } from './load.ts';

/** Units an adjudicator settles: rubric items and the binary answer label (claims and ratings are not adjudicated). */
export const isAdjudicable = (unit: string): boolean => unit !== '' && unit !== ANSWER_SCALE_KEYS.numeric && !unit.startsWith(CLAIM_PREFIX);

export interface Disagreement {
  answerId: number;
  answer: string;
  run: string;
  model: string;
  unit: string;
  /** Every annotator's label of the unit, side by side. */
  labels: Array<{ annotator: string; label: string }>;
  /** True once k annotators labelled the unit. */
  complete: boolean;
  adjudication: Adjudication | null;
}

/** The units where the campaign's annotators gave more than one distinct label (pure, over loaded rows). */
export function findDisagreements(campaign: Pick<Campaign, 'overlap'>, labels: readonly CampaignLabel[], adjudications: readonly Adjudication[]): Disagreement[] {
  const units = new Map<string, CampaignLabel[]>();
  for (const l of labels) {
    if (!isAdjudicable(l.unit)) continue;
    const k = `${l.answerId}\u0000${l.unit}`;
    units.set(k, [...(units.get(k) ?? []), l]);
  }
  const adj = new Map(adjudications.map((a) => [`${a.answerId}\u0000${a.unit}`, a]));
  const out: Disagreement[] = [];
  for (const [k, ls] of units) {
    if (new Set(ls.map((l) => l.label)).size < 2) continue;
    const first = ls[0]!;
    out.push({
      answerId: first.answerId,
      answer: first.answer,
      run: first.run,
      model: first.model,
      unit: first.unit,
      labels: ls.map((l) => ({ annotator: l.annotator, label: l.label })),
      complete: ls.length >= campaign.overlap,
      adjudication: adj.get(k) ?? null,
    });
  }
  return out;
}

/** Disagreements of a campaign; `waiting` keeps only those without a final label. */
export async function campaignDisagreements(database: Database, ref: number | string, opts: { waiting?: boolean } = {}): Promise<Disagreement[]> {
  const campaign = await findCampaign(database.db, ref);
  const found = findDisagreements(campaign, await campaignLabels(database.db, campaign), await campaignAdjudications(database.db, campaign));
  return opts.waiting ? found.filter((d) => d.adjudication === null) : found;
}
