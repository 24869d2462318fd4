import type { Database } from '../db/client.ts';
import type { RatingRow } from '../analysis/ratings.ts';
import { ANSWER_SCALE_KEYS } from '../domain/campaigns.ts';
import { badInput } from '../domain/errors.ts';
import { SCALES } from '../domain/labels.ts';
import { findCampaign } from './campaigns/load.ts';
import { findRun } from './grading/run-ref.ts';

/**
 * The numeric ratings people gave in the annotation workspace and campaigns (labels at
 * `answer:numeric`) as the rows `assay analyze ratings` summarises: one rated unit per answer (model,
 * `run/answer id`), the annotator as the rater, and as the criterion the campaign the rating was given
 * in ('rating' for the plain workspace's 1..5). Filtered by run, by campaign (its answers and its
 * annotators), or both; nothing to summarise is bad input, not an empty report.
 */
export async function storedRatings(database: Database, q: { run?: string; campaign?: string | number }): Promise<RatingRow[]> {
  const run = q.run === undefined ? null : (await findRun(database, q.run)).name;
  const campaign = q.campaign === undefined ? null : await findCampaign(database.db, q.campaign);
  const r = await database.execute(
    `select r.model, r.name as run, a.external_id as answer, l.annotator, l.label, c.name as campaign
       from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id
       left join campaigns c on c.id = l.campaign_id
      where l.item_key = $1 and l.kind = 'human' and ($2::text is null or r.name = $2)
        and ($3::int is null or (l.annotator = any($4::text[])
             and exists (select 1 from campaign_answers ca where ca.campaign_id = $3 and ca.answer_id = a.id)))
      order by a.id, l.annotator`,
    [ANSWER_SCALE_KEYS.numeric, run, campaign?.id ?? null, campaign?.annotators ?? []],
  );
  const rows = r.rows.flatMap((x): RatingRow[] => {
    const n = SCALES.numeric.normalise(x.label);
    if (!n) return [];
    const criterion = campaign?.name ?? (x.campaign === null ? 'rating' : String(x.campaign));
    return [{ model: String(x.model), item: `${String(x.run)}/${String(x.answer)}`, criterion, rater: String(x.annotator), rating: n.value }];
  });
  if (rows.length === 0) {
    const where = [run !== null ? `run ${run}` : null, campaign ? `campaign '${campaign.name}'` : null].filter(Boolean).join(' and ') || 'the database';
    throw badInput(`no numeric ratings stored for ${where} (ratings are given in the annotation workspace: /annotate?scale=numeric, or a campaign with a numeric scale)`);
  }
  return rows;
}
