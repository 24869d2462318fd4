import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.ts';
import { answers, labels, rubricItems, rubricVersions } from '../db/schema.ts';
import { ANSWER_SCALE_KEYS } from '../domain/campaigns.ts';
import { badInput, notFound } from '../domain/errors.ts';
import { CLAIM_VERDICTS, ITEM_VERDICTS } from '../domain/verdicts.ts';
import { splitSentences } from '../scoring/description/sentences.ts';
import { SCALES } from '../domain/labels.ts';
import { getAnswer } from './answers.ts';
import { claimStamp, claimStanding, type ClaimStanding } from './claim-marks.ts';
import { inTransaction, lockAnswerLabels, refuseChanged, type Expected } from './label-expect.ts';
import { refuseUndescribed } from './label-values.ts';
import { upsertLabels } from './labels.ts';
import { getRubric } from './rubrics.ts';

/**
 * The annotation workflow behind the annotation pages. An answer is done for an annotator once every
 * scale the queue asks has their label: every item of its rubric, every claim (sentence), and the
 * pass/fail and the rating when the queue asks for them (`?scale=binary|numeric`) — the same controls
 * the workspace opens on until they are given. Until then it stays in their queue (so a half-labelled
 * answer is resumed, not lost). Nothing here reads grades: the annotator never sees a judge's verdicts.
 * Claims are the answer's sentences (split deterministically, so the keys stay stable); a claim mark
 * is a label with item key `claim:<n>` and label true|false|unverifiable. The workspace's whole-answer
 * marks (workspace.ts) are stored where campaigns store them (domain/campaigns.ts ANSWER_SCALE_KEYS).
 * Only an answer row that is really absent is not_found; a failing query is never caught here, so it
 * reaches the fronts as the database error it is (500), not as a missing answer.
 */

export const CLAIM_PREFIX = 'claim:';

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

/**
 * The answer's sentences: what the annotator marks true, false or unverifiable (the segmenter of
 * scoring/description/sentences.ts: wrapped lines joined, never a fragment of a sentence).
 */
export function splitClaims(text: string): string[] {
  return splitSentences(text);
}

export interface AnnotationTask {
  answerId: number;
  answer: string;
  run: string;
  model: string;
  text: string;
  rubric: { slug: string; title: string; version: number };
  items: Array<{ id: string; text: string; weight: number; label: string | null }>;
  /**
   * Each sentence with the annotator's mark of it: `sentence` says whether the mark was given on this very
   * sentence ('current') or is an old one whose sentence is unknown; `stale` is a mark stored at this index
   * but given on another sentence (the split moved): not this sentence's label — re-mark this sentence.
   */
  claims: Array<{ index: number; text: string; label: string | null; sentence?: Exclude<ClaimStanding, 'stale'> | null; stale?: { label: string } | null }>;
  /** Every stale claim mark, including those at an index the answer no longer has (claim-marks.ts). */
  staleClaims?: StaleClaim[];
}

export interface StaleClaim {
  index: number;
  label: string;
  /** 'moved': given on another sentence; 'out_of_range': the answer has no sentence n today. */
  reason: 'moved' | 'out_of_range';
}

/** The task with the annotator's labels so far: plain ones, or those of the campaign (row id) it is opened in. */
export async function annotationTask(database: Database, answerId: number, annotator: string, campaignId: number | null = null): Promise<AnnotationTask> {
  const a = await getAnswer(database, answerId);
  if (a.task !== 'describe' && a.task !== 'describe-then-solve') throw badInput(`answer ${answerId}: task '${a.task}' has no description to annotate`);
  if (!a.rubric) throw badInput(`answer ${answerId}: has no rubric to annotate against`);
  const rubric = await getRubric(database, a.rubric);
  const mine = await annotatorLabels(database, answerId, annotator, campaignId);
  const text = a.text ?? '';
  const staleAt = new Map((mine.staleClaims ?? []).map((c) => [c.index, c]));
  return {
    answerId,
    answer: a.externalId,
    run: a.run,
    model: a.model,
    text,
    rubric: { slug: rubric.id, title: rubric.title, version: rubric.version },
    items: rubric.items.map((it) => ({ id: it.id, text: it.text, weight: it.weight, label: mine.items[it.id] ?? null })),
    claims: splitClaims(text).map((t, index) => ({
      index,
      text: t,
      label: mine.claims[index] ?? null,
      sentence: mine.claimSentences?.[index] ?? null,
      stale: staleAt.has(index) ? { label: staleAt.get(index)!.label } : null,
    })),
    staleClaims: mine.staleClaims,
  };
}

/**
 * The annotator's labels of one answer as the workspace shows them: without a campaign their plain labels;
 * in a campaign (its row id) that campaign's, and a plain label where the campaign has none of theirs
 * (the rule of campaigns/campaign-labels.ts), never another campaign's.
 */
export async function annotatorLabels(
  database: Database,
  answerId: number,
  annotator: string,
  campaignId: number | null = null,
): Promise<{
  answerId: number;
  annotator: string;
  items: Record<string, string>;
  /** Claim marks resolved against today's split (claim-marks.ts): only those not stale. */
  claims: Record<number, string>;
  claimSentences: Record<number, Exclude<ClaimStanding, 'stale'>>;
  staleClaims: StaleClaim[];
  binary?: string;
  numeric?: string;
}> {
  const context = campaignId === null ? isNull(labels.campaignId) : or(eq(labels.campaignId, campaignId), isNull(labels.campaignId));
  const rows = await database.db
    .select({ item: labels.itemKey, label: labels.label, sentence: labels.claimSentence })
    .from(labels)
    .where(and(eq(labels.answerId, answerId), eq(labels.annotator, annotator), eq(labels.kind, 'human'), context))
    // The campaign's own label last, so it stands over a plain one of the same unit below.
    .orderBy(sql`${labels.campaignId} nulls first`);
  // No prototype: item ids are slugs, and `constructor` or `toString` must read as unlabelled, not as Object's own.
  const items: Record<string, string> = Object.create(null) as Record<string, string>;
  const claims: Record<number, string> = {};
  const claimSentences: Record<number, Exclude<ClaimStanding, 'stale'>> = {};
  const stale = new Map<number, StaleClaim>();
  const whole: { binary?: string; numeric?: string } = {};
  const sentences = rows.some((r) => r.item.startsWith(CLAIM_PREFIX)) ? splitClaims((await database.db.select({ text: answers.text }).from(answers).where(eq(answers.id, answerId)))[0]?.text ?? '') : [];
  for (const r of rows) {
    if (r.item.startsWith(CLAIM_PREFIX)) {
      // Resolved against today's split: a mark given on another sentence is stale, never this sentence's label.
      const index = Number(r.item.slice(CLAIM_PREFIX.length));
      const standing = claimStanding(index, r.sentence, sentences);
      if (standing === 'stale') {
        stale.set(index, { index, label: r.label, reason: index >= sentences.length ? 'out_of_range' : 'moved' });
        delete claims[index];
        delete claimSentences[index];
      } else {
        claims[index] = r.label;
        claimSentences[index] = standing;
        stale.delete(index);
      }
    }
    else if (r.item === ANSWER_SCALE_KEYS.binary) whole.binary = r.label;
    else if (r.item === ANSWER_SCALE_KEYS.numeric) whole.numeric = r.label;
    else if (r.item !== '') items[r.item] = r.label;
  }
  return { answerId, annotator, items, claims, claimSentences, staleClaims: [...stale.values()].sort((x, y) => x.index - y.index), ...whole };
}

export type AnnotationMark = { item: string; label: string } | { claim: number; label: string } | { binary: string } | { rating: number };
export type AnnotationInput = { answerId: number; annotator: string } & AnnotationMark;

/** The 1..k rating of the plain queue (a campaign names its own k and anchors). */
export const PLAIN_RATING_K = 5;

/** The items an annotator can label: those of the rubric's newest version, the one the workspace shows and a campaign asks. */
export interface AnnotatableItems {
  version: number;
  /** The current version's row id: what a label saved now records as its rubric version. */
  versionId: number;
  current: Set<string>;
  /** Items only earlier versions have: named as such when refused (a tab opened before the rubric changed). */
  older: Set<string>;
}

export async function annotatableItems(tx: Queryable, rubricId: number): Promise<AnnotatableItems> {
  const rows = await tx
    .select({ version: rubricVersions.version, versionId: rubricVersions.id, key: rubricItems.itemKey })
    .from(rubricItems)
    .innerJoin(rubricVersions, eq(rubricVersions.id, rubricItems.rubricVersionId))
    .where(eq(rubricVersions.rubricId, rubricId));
  const version = rows.reduce((v, r) => Math.max(v, r.version), 0);
  const current = new Set(rows.filter((r) => r.version === version).map((r) => r.key));
  const versionId = rows.find((r) => r.version === version)?.versionId ?? 0;
  return { version, versionId, current, older: new Set(rows.filter((r) => !current.has(r.key)).map((r) => r.key)) };
}

/** Why an item cannot be labelled on this answer, or null when it can. */
export function itemProblem(items: AnnotatableItems, item: string): string | null {
  if (items.current.has(item)) return null;
  if (items.older.has(item)) return `item '${item}': not an item of version ${items.version} (the current one) of this answer's rubric`;
  return `item '${item}': unknown item for this answer's rubric`;
}

const markName = (m: AnnotationMark): string =>
  'item' in m ? `item '${m.item}'` : 'claim' in m ? `claim ${String(m.claim)}` : 'binary' in m ? 'binary' : 'rating';

/**
 * The stored (item_key, label) of one mark, or the problem with it: a verdict of the vocabulary for an
 * item of the rubric, a claim mark for a claim that exists, pass/fail (stored as true/false, as
 * campaigns store it), a whole rating 1..PLAIN_RATING_K.
 */
function markRow(m: AnnotationMark, items: AnnotatableItems | null, claims: number): { key: string; label: string } | string {
  if ('item' in m) {
    if (!(ITEM_VERDICTS as readonly string[]).includes(m.label)) return `item '${m.item}': label must be one of ${ITEM_VERDICTS.join('|')}, got '${m.label}'`;
    if (m.item.startsWith(CLAIM_PREFIX) || m.item.startsWith('answer:')) return `item '${m.item}': not a rubric item`;
    if (items === null) return `item '${m.item}': the answer has no rubric, so items cannot be labelled`;
    return itemProblem(items, m.item) ?? { key: m.item, label: m.label };
  }
  if ('claim' in m) {
    if (!(CLAIM_VERDICTS as readonly string[]).includes(m.label)) return `claim ${m.claim}: label must be one of ${CLAIM_VERDICTS.join('|')}, got '${m.label}'`;
    if (!Number.isInteger(m.claim) || m.claim < 0 || m.claim >= claims) return `claim ${String(m.claim)}: the answer has claims 0..${claims - 1}`;
    return { key: `${CLAIM_PREFIX}${m.claim}`, label: m.label };
  }
  if ('binary' in m) {
    const n = SCALES.binary.normalise(m.binary);
    return n ? { key: ANSWER_SCALE_KEYS.binary, label: String(n.category) } : `binary: ${JSON.stringify(m.binary)} is not ${SCALES.binary.accepts}`;
  }
  if (!Number.isInteger(m.rating) || m.rating < 1 || m.rating > PLAIN_RATING_K) return `rating: ${String(m.rating)} is not a whole number 1..${PLAIN_RATING_K}`;
  return { key: ANSWER_SCALE_KEYS.numeric, label: String(m.rating) };
}

/**
 * Saves an annotator's verdicts and claim marks of one answer (each replacing their own earlier one).
 * All or nothing: every mark is checked first and one bad mark fails the whole request, naming every
 * problem, with nothing written; the good ones are then written in one transaction.
 */
export async function saveAnnotations(
  database: Database,
  input: { answerId: number; annotator: string; marks: AnnotationMark[]; expected?: Expected },
): Promise<{ created: number; updated: number; unchanged: number }> {
  if (input.annotator.trim() === '') throw badInput('annotator: must not be empty');
  return database.db.transaction(async (tx) => {
    const [a] = await tx.select({ id: answers.id, task: answers.task, rubricId: answers.rubricId, text: answers.text }).from(answers).where(eq(answers.id, input.answerId));
    if (!a) throw notFound(`answer ${input.answerId} not found`);
    refuseUndescribed(a);
    const items = a.rubricId === null ? null : await annotatableItems(tx, a.rubricId);
    const sentences = splitClaims(a.text ?? '');
    const claims = sentences.length;
    const problems: string[] = [];
    const seen = new Map<string, string>();
    for (const m of input.marks) {
      const r = markRow(m, items, claims);
      if (typeof r === 'string') {
        problems.push(r);
        continue;
      }
      const prev = seen.get(r.key);
      if (prev !== undefined && prev !== r.label) problems.push(`${markName(m)}: given twice ('${prev}' and '${r.label}')`);
      seen.set(r.key, r.label);
    }
    if (problems.length > 0) throw badInput(`answer ${a.id}: ${problems.join('; ')}; nothing saved`);
    // A page that saw other labels than those stored now is refused (label-expect.ts), nothing written.
    if (input.expected?.size) {
      await lockAnswerLabels(tx, a.id, input.annotator);
      refuseChanged(a.id, await annotatorLabels(inTransaction(database, tx), a.id, input.annotator), input.expected, seen);
    }
    // Every mark was checked against the current version above: that is the version it was given against.
    const rubricVersionId = items && items.versionId > 0 ? items.versionId : null;
    // A claim mark records the sentence it was given on, so a later change of the split cannot move it.
    const values = [...seen].map(([itemKey, label]) => ({ answerId: a.id, itemKey, annotator: input.annotator, kind: 'human' as const, label, rubricVersionId, claimSentence: claimStamp(itemKey, sentences) }));
    return upsertLabels(tx, values).then((r) => ({ created: r.inserted, updated: r.updated, unchanged: r.unchanged }));
  });
}

/** Saves one mark: a verdict, a claim mark, pass/fail or a rating (replacing the annotator's earlier one). */
export async function saveAnnotation(database: Database, input: AnnotationInput): Promise<{ created: boolean }> {
  const { answerId, annotator, ...mark } = input;
  const r = await saveAnnotations(database, { answerId, annotator, marks: [mark] });
  return { created: r.created === 1 };
}
