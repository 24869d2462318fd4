import type { Database } from '../db/client.ts';
import { ANSWER_SCALE_KEYS } from '../domain/campaigns.ts';
import { CLAIM_PREFIX, splitClaims } from './annotation-claims.ts';
import { claimStanding } from './claim-marks.ts';

/**
 * The plain annotation queue and its progress. An answer is done for an annotator once every scale the
 * queue asks has their label: every item of its rubric, every claim (sentence), and the pass/fail and the
 * rating when the queue asks for them (`?scale=binary|numeric`) — the same controls the workspace opens on
 * until they are given. Until then it stays in their queue (so a half-labelled answer is resumed, not
 * lost). Nothing here reads grades: the annotator never sees a judge's verdicts. The workspace's
 * whole-answer marks are stored where campaigns store them (domain/campaigns.ts ANSWER_SCALE_KEYS).
 */

export interface QueueRow {
  answerId: number;
  answer: string;
  run: string;
  model: string;
  rubric: string;
  items: number;
  labelled: number;
  /** The answer's claims (sentences) and how many the annotator marked. */
  claims: number;
  claimsMarked: number;
  /** Whether the annotator gave the pass/fail and the rating (only counted when the queue asks them). */
  binary: boolean;
  rating: boolean;
  done: boolean;
}

/** The whole-answer scales a plain queue may ask beside item verdicts and claims. */
export type ExtraScale = 'binary' | 'numeric';

export interface Progress {
  annotator: string;
  total: number;
  done: number;
  started: number;
  /** The next answer to label (a started one first), or null when everything is done. */
  next: number | null;
  rows: QueueRow[];
}

/** The plain queue counts the plain labels only: a campaign's labels are that campaign's (labels.ts). */
export async function annotationProgress(database: Database, annotator: string, opts: { run?: string; extra?: readonly ExtraScale[] } = {}): Promise<Progress> {
  const r = await database.execute(
    `with latest as (
       select distinct on (rv.rubric_id) rv.rubric_id, rv.id from rubric_versions rv order by rv.rubric_id, rv.version desc)
     select a.id as "answerId", a.external_id as answer, r.name as run, r.model, rb.slug as rubric, a.text,
            (select count(*)::int from rubric_items ri where ri.rubric_version_id = latest.id) as items,
            (select count(*)::int from labels l join rubric_items ri on ri.item_key = l.item_key and ri.rubric_version_id = latest.id
              where l.answer_id = a.id and l.annotator = $1 and l.campaign_id is null) as labelled,
            (select coalesce(json_agg(json_build_array(l.item_key, l.claim_sentence)), '[]'::json)::text from labels l where l.answer_id = a.id and l.annotator = $1 and l.campaign_id is null and l.item_key like 'claim:%') as "claimMarks",
            exists (select 1 from labels l where l.answer_id = a.id and l.annotator = $1 and l.campaign_id is null and l.item_key = '${ANSWER_SCALE_KEYS.binary}') as binary,
            exists (select 1 from labels l where l.answer_id = a.id and l.annotator = $1 and l.campaign_id is null and l.item_key = '${ANSWER_SCALE_KEYS.numeric}') as rating
       from answers a join runs r on r.id = a.run_id join rubrics rb on rb.id = a.rubric_id join latest on latest.rubric_id = rb.id
      where a.task in ('describe', 'describe-then-solve') and a.text is not null and ($2::text is null or r.name = $2)
      order by a.id`,
    [annotator, opts.run ?? null],
  );
  const asks = (s: ExtraScale) => opts.extra?.includes(s) ?? false;
  const rows: QueueRow[] = r.rows.map((x) => {
    const items = Number(x.items);
    const labelled = Number(x.labelled);
    // Claim marks are checked against the sentence count when saved, and a stale one (given on another
    // sentence than today's sentence n, claim-marks.ts) is no mark: a count reaching the sentences is all of them.
    const sentences = splitClaims(String(x.text));
    const claims = sentences.length;
    const marks = JSON.parse(String(x.claimMarks)) as Array<[string, string | null]>;
    const claimsMarked = marks.filter(([key, hash]) => claimStanding(Number(key.slice(CLAIM_PREFIX.length)), hash, sentences) !== 'stale').length;
    const binary = x.binary === true || x.binary === 't';
    const rating = x.rating === true || x.rating === 't';
    const done = items > 0 && labelled >= items && claimsMarked >= claims && (!asks('binary') || binary) && (!asks('numeric') || rating);
    return { answerId: Number(x.answerId), answer: x.answer, run: x.run, model: x.model, rubric: x.rubric, items, labelled, claims, claimsMarked, binary, rating, done };
  });
  const started = rows.filter((x) => !x.done && (x.labelled > 0 || x.claimsMarked > 0 || (asks('binary') && x.binary) || (asks('numeric') && x.rating)));
  const next = started[0]?.answerId ?? rows.find((x) => !x.done)?.answerId ?? null;
  return { annotator, total: rows.length, done: rows.filter((x) => x.done).length, started: started.length, next, rows };
}
