import type { Database } from '../db/client.ts';
import type { RatingRow } from '../analysis/ratings.ts';
import { ANSWER_SCALE_KEYS } from '../domain/campaigns.ts';
import { badInput } from '../domain/errors.ts';
import { SCALES } from '../domain/labels.ts';
import { campaignLabels } from './campaigns/campaign-labels.ts';
import { findCampaign, listCampaigns, type Campaign } from './campaigns/load.ts';
import { findRun } from './grading/run-ref.ts';

interface StoredRating {
  answerId: number;
  model: string;
  run: string;
  answer: string;
  annotator: string;
  label: string;
}

const holding = (answerId: number, annotator: string) => `${answerId}\u0000${annotator}`;

/** A campaign's ratings: its labels at `answer:numeric` as campaignLabels defines them (holders only), the ones its agreement report reads. */
async function campaignRatings(database: Database, campaign: Campaign, run: string | null): Promise<StoredRating[]> {
  return (await campaignLabels(database.db, campaign)).filter((l) => l.unit === ANSWER_SCALE_KEYS.numeric && (run === null || l.run === run));
}

/**
 * The numeric ratings people gave in the annotation workspace and campaigns (labels at
 * `answer:numeric`) as the rows `assay analyze ratings` summarises: one rated unit per answer (model,
 * `run/answer id`), the annotator as the rater, and as the criterion each campaign the rating is a
 * label of ('rating' for one of none: the plain workspace's 1..5). A campaign's labels are
 * campaignLabels' — those of annotators holding the answer, wherever given — so criterion C has the
 * figures of campaign C's page. Filtered by run, by campaign, or both; nothing to summarise is bad
 * input, not an empty report.
 */
export async function storedRatings(database: Database, q: { run?: string; campaign?: string | number }): Promise<RatingRow[]> {
  const run = q.run === undefined ? null : (await findRun(database, q.run)).name;
  const campaign = q.campaign === undefined ? null : await findCampaign(database.db, q.campaign);
  const given: Array<{ rating: StoredRating; criterion: string }> = [];
  if (campaign) {
    for (const rating of await campaignRatings(database, campaign, run)) given.push({ rating, criterion: campaign.name });
  } else {
    const countsIn = new Map<string, string[]>();
    for (const c of await listCampaigns(database)) {
      for (const l of await campaignRatings(database, await findCampaign(database.db, c.id), run)) {
        const k = holding(l.answerId, l.annotator);
        countsIn.set(k, [...(countsIn.get(k) ?? []), c.name]);
      }
    }
    const r = await database.execute(
      `select a.id as "answerId", r.model, r.name as run, a.external_id as answer, l.annotator, l.label
         from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id
        where l.item_key = $1 and l.kind = 'human' and ($2::text is null or r.name = $2)
        order by a.id, l.annotator`,
      [ANSWER_SCALE_KEYS.numeric, run],
    );
    for (const x of r.rows) {
      const rating = { answerId: Number(x.answerId), model: String(x.model), run: String(x.run), answer: String(x.answer), annotator: String(x.annotator), label: String(x.label) };
      for (const criterion of countsIn.get(holding(rating.answerId, rating.annotator)) ?? ['rating']) given.push({ rating, criterion });
    }
  }
  const rows = given.flatMap(({ rating: x, criterion }): RatingRow[] => {
    const n = SCALES.numeric.normalise(x.label);
    if (!n) return [];
    return [{ model: x.model, item: `${x.run}/${x.answer}`, criterion, rater: x.annotator, rating: n.value }];
  });
  if (rows.length === 0) {
    const where = [run !== null ? `run ${run}` : null, campaign ? `campaign '${campaign.name}'` : null].filter(Boolean).join(' and ') || 'the database';
    throw badInput(`no numeric ratings stored for ${where} (ratings are given in the annotation workspace: /annotate?scale=numeric, or a campaign with a numeric scale)`);
  }
  return rows;
}
