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
  campaignId: number | null;
}

/** One stored `answer:numeric` label: the labels key is (answer, item, annotator, campaign), the item fixed here. */
const labelRow = (answerId: number, annotator: string, campaignId: number | null) => `${answerId}\u0000${annotator}\u0000${campaignId ?? ''}`;

/** A campaign's ratings: its labels at `answer:numeric` as campaignLabels defines them (holders only), the ones its agreement report reads. */
async function campaignRatings(database: Database, campaign: Campaign, run: string | null): Promise<StoredRating[]> {
  return (await campaignLabels(database.db, campaign)).filter((l) => l.unit === ANSWER_SCALE_KEYS.numeric && (run === null || l.run === run));
}

/**
 * The numeric ratings people gave in the annotation workspace and campaigns (labels at
 * `answer:numeric`) as the rows `assay analyze ratings` summarises: one rated unit per answer (model,
 * the (run, answer id) pair as JSON, `["run","id"]`), the annotator as the rater, and as the criterion each campaign the rating is a
 * label of ('rating' for one no campaign reads: the plain workspace's 1..5). A campaign's labels are
 * campaignLabels' — its own and a holder's plain one where it has none — exactly, so criterion C has
 * the figures of campaign C's page and of `--campaign C`. Filtered by run, by campaign, or both;
 * nothing to summarise is bad input, not an empty report.
 */
export async function storedRatings(database: Database, q: { run?: string; campaign?: string | number }): Promise<RatingRow[]> {
  const run = q.run === undefined ? null : (await findRun(database, q.run)).name;
  const campaign = q.campaign === undefined ? null : await findCampaign(database.db, q.campaign);
  const given: Array<{ rating: StoredRating; criterion: string }> = [];
  if (campaign) {
    for (const rating of await campaignRatings(database, campaign, run)) given.push({ rating, criterion: campaign.name });
  } else {
    // Each campaign's criterion is its labels exactly (campaignLabels); a stored row is one label
    // (answer, annotator, campaign: the item is fixed), so the rows no campaign reads are told apart by
    // that key and go under 'rating'. Matching on (answer, annotator) alone put a rating given in
    // campaign B under every campaign the person holds the answer in.
    const read = new Set<string>();
    for (const c of await listCampaigns(database)) {
      for (const rating of await campaignRatings(database, await findCampaign(database.db, c.id), run)) {
        given.push({ rating, criterion: c.name });
        read.add(labelRow(rating.answerId, rating.annotator, rating.campaignId));
      }
    }
    const r = await database.execute(
      `select a.id as "answerId", r.model, r.name as run, a.external_id as answer, l.annotator, l.label, l.campaign_id as "campaignId"
         from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id
        where l.item_key = $1 and l.kind = 'human' and ($2::text is null or r.name = $2)
        order by a.id, l.annotator, l.campaign_id nulls first`,
      [ANSWER_SCALE_KEYS.numeric, run],
    );
    for (const x of r.rows) {
      const campaignId = x.campaignId === null ? null : Number(x.campaignId);
      if (read.has(labelRow(Number(x.answerId), String(x.annotator), campaignId))) continue;
      const rating = { answerId: Number(x.answerId), model: String(x.model), run: String(x.run), answer: String(x.answer), annotator: String(x.annotator), label: String(x.label), campaignId };
      given.push({ rating, criterion: 'rating' });
    }
  }
  const rows = given.flatMap(({ rating: x, criterion }): RatingRow[] => {
    const n = SCALES.numeric.normalise(x.label);
    if (!n) return [];
    // The (run, answer id) pair as JSON: both are free text, so 'exp' + 'v2/g1' and 'exp/v2' + 'g1' joined by '/' were one unit.
    return [{ model: x.model, item: JSON.stringify([x.run, x.answer]), criterion, rater: x.annotator, rating: n.value }];
  });
  if (rows.length === 0) {
    const where = [run !== null ? `run ${run}` : null, campaign ? `campaign '${campaign.name}'` : null].filter(Boolean).join(' and ') || 'the database';
    throw badInput(`no numeric ratings stored for ${where} (ratings are given in the annotation workspace: /annotate?scale=numeric, or a campaign with a numeric scale)`);
  }
  return rows;
}
