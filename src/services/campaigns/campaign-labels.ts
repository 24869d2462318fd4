import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { claimIndex, claimStanding, sentencesOf } from '../claim-marks.ts';
import type { Campaign } from './load.ts';
import { intList, rowsOf, textList } from './sql.ts';

/** One human label of a campaign answer by one of its annotators. */
export interface CampaignLabel {
  answerId: number;
  answer: string;
  run: string;
  model: string;
  /** The stored unit key: a rubric item id, `claim:<n>`, `answer:binary`, `answer:numeric` ('' for a plain answer-level label). */
  unit: string;
  annotator: string;
  label: string;
  /** The campaign the label was given in; null when it was given elsewhere (an import, the plain annotation page). */
  campaignId: number | null;
  createdAt: string;
  /**
   * A claim mark whose sentence is not today's sentence n (claim-marks.ts: given on another sentence, or of
   * unknown sentence at an index the answer no longer has): shown as stale, counted as no mark of claim n.
   */
  stale?: true;
}

/**
 * Which labels are a campaign's (SQL over labels `l`): those given in it, and a plain label (the plain
 * pages, an import: campaign null) where it has none of that annotator's for the unit; never one given
 * in another campaign. Ordering `l.campaign_id nulls last` within a unit puts the campaign's own first.
 */
export const ofCampaign = (campaignId: number): SQL => sql`(l.campaign_id = ${campaignId} or l.campaign_id is null)`;

/**
 * Every human label the campaign's annotators gave the answers they hold, in answer, unit, annotator
 * order, one per unit and annotator (ofCampaign). Only holders: the plain annotation routes and label
 * imports know no k, so a label of an annotator who holds no slot of the answer would make it a unit of
 * k + 1 people here.
 */
export async function campaignLabels(db: Queryable, campaign: Campaign): Promise<CampaignLabel[]> {
  const rows = await rowsOf<CampaignLabel & { createdAt: string | Date; rank: number; claimSentence: string | null }>(
    db,
    sql`select * from (
          select distinct on (l.answer_id, l.item_key, l.annotator)
                 l.answer_id as "answerId", a.external_id as answer, r.name as run, r.model, l.item_key as unit, l.annotator,
                 l.label, l.campaign_id as "campaignId", l.created_at as "createdAt", l.claim_sentence as "claimSentence", ca.rank
            from campaign_answers ca join labels l on l.answer_id = ca.answer_id
            join answers a on a.id = ca.answer_id join runs r on r.id = a.run_id
           where ca.campaign_id = ${campaign.id} and l.kind = 'human' and l.annotator in ${textList(campaign.annotators)} and ${ofCampaign(campaign.id)}
             and exists (select 1 from campaign_assignments x where x.campaign_id = ca.campaign_id and x.answer_id = ca.answer_id and x.annotator = l.annotator)
           order by l.answer_id, l.item_key, l.annotator, l.campaign_id nulls last) own
         order by own.rank, own.unit, own.annotator`,
  );
  const claimed = [...new Set(rows.filter((r) => claimIndex(r.unit) !== null).map((r) => Number(r.answerId)))];
  const sentences = new Map<number, string[]>();
  if (claimed.length > 0) {
    for (const a of await rowsOf<{ id: number; text: string | null }>(db, sql`select id, text from answers where id in ${intList(claimed)}`)) {
      sentences.set(Number(a.id), sentencesOf(a.text));
    }
  }
  const stale = (r: (typeof rows)[number]) => {
    const n = claimIndex(r.unit);
    return n !== null && claimStanding(n, r.claimSentence, sentences.get(Number(r.answerId)) ?? []) === 'stale';
  };
  return rows.map((r) => ({
    answerId: Number(r.answerId),
    answer: r.answer,
    run: r.run,
    model: r.model,
    unit: r.unit,
    annotator: r.annotator,
    label: r.label,
    campaignId: r.campaignId === null ? null : Number(r.campaignId),
    createdAt: new Date(r.createdAt).toISOString(),
    ...(stale(r) ? { stale: true as const } : {}),
  }));
}

export interface Adjudication {
  answerId: number;
  unit: string;
  label: string;
  adjudicator: string;
  note: string | null;
  createdAt: string;
}

export async function campaignAdjudications(db: Queryable, campaign: Campaign): Promise<Adjudication[]> {
  const rows = await rowsOf<Adjudication & { createdAt: string | Date }>(
    db,
    sql`select answer_id as "answerId", item_key as unit, label, adjudicator, note, created_at as "createdAt"
          from adjudications where campaign_id = ${campaign.id} order by answer_id, item_key`,
  );
  return rows.map((r) => ({ ...r, answerId: Number(r.answerId), createdAt: new Date(r.createdAt).toISOString() }));
}
