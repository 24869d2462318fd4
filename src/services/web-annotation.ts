import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { labels } from '../db/schema.ts';
import { badInput, notFound } from '../domain/errors.ts';
import { CLAIM_VERDICTS, ITEM_VERDICTS } from '../domain/verdicts.ts';
import { getAnswer } from './answers.ts';
import { saveLabel } from './labels.ts';
import { getRubric } from './rubrics.ts';

/**
 * The annotation workflow behind the annotation pages. An answer is done for an annotator once every
 * item of its rubric has their verdict; until then it stays in their queue (so a half-labelled answer
 * is resumed, not lost). Nothing here reads grades: the annotator never sees a judge's verdicts.
 * Claims are the answer's sentences (split deterministically, so the keys stay stable); a claim mark
 * is a label with item key `claim:<n>` and label true|false|unverifiable.
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
  done: boolean;
}

export interface Progress {
  annotator: string;
  total: number;
  done: number;
  started: number;
  /** The next answer to label (a started one first), or null when everything is done. */
  next: number | null;
  rows: QueueRow[];
}

export async function annotationProgress(database: Database, annotator: string, opts: { run?: string } = {}): Promise<Progress> {
  const r = await database.execute(
    `with latest as (
       select distinct on (rv.rubric_id) rv.rubric_id, rv.id from rubric_versions rv order by rv.rubric_id, rv.version desc)
     select a.id as "answerId", a.external_id as answer, r.name as run, r.model, rb.slug as rubric,
            (select count(*)::int from rubric_items ri where ri.rubric_version_id = latest.id) as items,
            (select count(*)::int from labels l join rubric_items ri on ri.item_key = l.item_key and ri.rubric_version_id = latest.id
              where l.answer_id = a.id and l.annotator = $1) as labelled
       from answers a join runs r on r.id = a.run_id join rubrics rb on rb.id = a.rubric_id join latest on latest.rubric_id = rb.id
      where a.task in ('describe', 'describe-then-solve') and a.text is not null and ($2::text is null or r.name = $2)
      order by a.id`,
    [annotator, opts.run ?? null],
  );
  const rows: QueueRow[] = r.rows.map((x) => {
    const items = Number(x.items);
    const labelled = Number(x.labelled);
    return { answerId: Number(x.answerId), answer: x.answer, run: x.run, model: x.model, rubric: x.rubric, items, labelled, done: items > 0 && labelled >= items };
  });
  const started = rows.filter((x) => !x.done && x.labelled > 0);
  const next = started[0]?.answerId ?? rows.find((x) => !x.done)?.answerId ?? null;
  return { annotator, total: rows.length, done: rows.filter((x) => x.done).length, started: started.length, next, rows };
}

/** The answer's sentences: what the annotator marks true, false or unverifiable. */
export function splitClaims(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => /[A-Za-z0-9]/.test(s) && s.length >= 3);
}

export interface AnnotationTask {
  answerId: number;
  answer: string;
  run: string;
  model: string;
  text: string;
  rubric: { slug: string; title: string; version: number };
  items: Array<{ id: string; text: string; weight: number; label: string | null }>;
  claims: Array<{ index: number; text: string; label: string | null }>;
}

export async function annotationTask(database: Database, answerId: number, annotator: string): Promise<AnnotationTask> {
  const a = await getAnswer(database, answerId);
  if (a.task !== 'describe' && a.task !== 'describe-then-solve') throw badInput(`answer ${answerId}: task '${a.task}' has no description to annotate`);
  if (!a.rubric) throw badInput(`answer ${answerId}: has no rubric to annotate against`);
  const rubric = await getRubric(database, a.rubric);
  const mine = await annotatorLabels(database, answerId, annotator);
  const text = a.text ?? '';
  return {
    answerId,
    answer: a.externalId,
    run: a.run,
    model: a.model,
    text,
    rubric: { slug: rubric.id, title: rubric.title, version: rubric.version },
    items: rubric.items.map((it) => ({ id: it.id, text: it.text, weight: it.weight, label: mine.items[it.id] ?? null })),
    claims: splitClaims(text).map((t, index) => ({ index, text: t, label: mine.claims[index] ?? null })),
  };
}

export async function annotatorLabels(
  database: Database,
  answerId: number,
  annotator: string,
): Promise<{ answerId: number; annotator: string; items: Record<string, string>; claims: Record<number, string> }> {
  const rows = await database.db
    .select({ item: labels.itemKey, label: labels.label })
    .from(labels)
    .where(and(eq(labels.answerId, answerId), eq(labels.annotator, annotator), eq(labels.kind, 'human')));
  const items: Record<string, string> = {};
  const claims: Record<number, string> = {};
  for (const r of rows) {
    if (r.item.startsWith(CLAIM_PREFIX)) claims[Number(r.item.slice(CLAIM_PREFIX.length))] = r.label;
    else if (r.item !== '') items[r.item] = r.label;
  }
  return { answerId, annotator, items, claims };
}

export type AnnotationInput = { answerId: number; annotator: string; label: string } & ({ item: string } | { claim: number });

/** Saves one verdict or claim mark (replacing the annotator's earlier one). */
export async function saveAnnotation(database: Database, input: AnnotationInput): Promise<{ created: boolean }> {
  if ('item' in input) {
    if (!(ITEM_VERDICTS as readonly string[]).includes(input.label)) throw badInput(`label: must be one of ${ITEM_VERDICTS.join('|')}, got '${input.label}'`);
    if (input.item.startsWith(CLAIM_PREFIX)) throw badInput(`item: '${input.item}' is not a rubric item`);
    return saveLabel(database, { answerId: input.answerId, item: input.item, annotator: input.annotator, kind: 'human', label: input.label });
  }
  if (!(CLAIM_VERDICTS as readonly string[]).includes(input.label)) throw badInput(`label: must be one of ${CLAIM_VERDICTS.join('|')}, got '${input.label}'`);
  const a = await getAnswer(database, input.answerId).catch(() => {
    throw notFound(`answer ${input.answerId} not found`);
  });
  const claims = splitClaims(a.text ?? '');
  if (!Number.isInteger(input.claim) || input.claim < 0 || input.claim >= claims.length) {
    throw badInput(`claim: answer ${input.answerId} has claims 0..${claims.length - 1}, got ${input.claim}`);
  }
  const rows = await database.db
    .insert(labels)
    .values({ answerId: input.answerId, itemKey: `${CLAIM_PREFIX}${input.claim}`, annotator: input.annotator, kind: 'human', label: input.label })
    .onConflictDoUpdate({ target: [labels.answerId, labels.itemKey, labels.annotator], set: { label: sql`excluded.label`, createdAt: sql`now()` } })
    .returning({ inserted: sql<boolean>`(xmax = 0)` });
  return { created: rows[0]?.inserted === true };
}
