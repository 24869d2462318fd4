import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { ANSWER_SCALE_KEYS } from '../domain/campaigns.ts';
import { badInput, notFound } from '../domain/errors.ts';
import { Fields } from '../domain/fields.ts';
import { ROW_ID_TEXT } from '../domain/limits.ts';
import type { Database, Queryable } from '../db/client.ts';
import { answers, labels, rubricItems, rubricVersions, runs } from '../db/schema.ts';
import { LABEL_KINDS } from '../domain/label-kinds.ts';
import { claimIndex, claimRangeProblem, claimStamp, sentencesOf } from './claim-marks.ts';
import { locatedError, noEdgeSpaces, type Located } from './import-parse.ts';
import { refuseUndescribed, storedLabelValue } from './label-values.ts';

/**
 * Human (and judge) labels for calibration, one per (answer, item, annotator, campaign): saving again
 * replaces the label, so annotation pages can save as the annotator goes; a label given in a campaign is
 * that campaign's (campaign null: the plain pages and imports), so two campaigns never overwrite each
 * other. item '' = a label of the whole answer. Each label records the rubric version it was given
 * against (null: unknown), so calibration never counts it as a label of a reworded item.
 */

const scalar = (text: z.ZodType<string>) => z.union([text, z.number(), z.boolean()]).transform(String);
/** Past 2^53 − 1 JSON.parse has already rounded the number to a neighbour: it would name another answer. */
const answerNumber = z.number().refine((v) => Math.abs(v) <= Number.MAX_SAFE_INTEGER, {
  error: `a number beyond ${Number.MAX_SAFE_INTEGER}, which a JSON number does not hold exactly (it reads as another); write the answer id as a string`,
});

export const LabelRowSchema = z
  .strictObject({
    answer: z.union([Fields.answerExternalId, answerNumber, z.boolean()]).transform(String).optional(),
    answer_id: z.union([z.number(), z.string().regex(ROW_ID_TEXT, 'must be a whole number')]).transform(Number).pipe(Fields.rowId).optional(),
    run: Fields.run.optional(),
    model: Fields.model.optional(),
    item: Fields.labelItem.nullable().optional(),
    rater: noEdgeSpaces(Fields.annotator).optional(),
    annotator: noEdgeSpaces(Fields.annotator).optional(),
    kind: z.enum(LABEL_KINDS).optional(),
    label: scalar(Fields.label),
    /** The version of the answer's rubric the label was given against, when the file knows it. */
    rubric_version: Fields.version.optional(),
  })
  .refine((r) => r.answer !== undefined || r.answer_id !== undefined, { path: ['answer'], message: 'required ("answer" with its run, or "answer_id")' })
  .refine((r) => r.rater !== undefined || r.annotator !== undefined, { path: ['rater'], message: 'required ("rater" or "annotator")' })
  // Two names for one label: taking either would credit the label to someone the row may not mean.
  .refine((r) => r.rater === undefined || r.annotator === undefined || r.rater === r.annotator, {
    path: ['annotator'],
    error: (i) => {
      const r = i.input as { rater: string; annotator: string };
      return `'${r.annotator}' is not the rater '${r.rater}' (give one of them)`;
    },
  });

export interface LabelInput {
  answerId: number;
  item?: string | null;
  annotator: string;
  kind?: (typeof LABEL_KINDS)[number];
  label: string;
}

/** Rows per statement: well under PostgreSQL's 65535 bind parameters. */
export const CHUNK = 1000;

/** Item keys of every version of the given rubrics: a label may concern an item of any version. */
export async function itemKeys(tx: Queryable, rubricIds: number[]): Promise<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>();
  for (let i = 0; i < rubricIds.length; i += CHUNK) {
    const rows = await tx
      .selectDistinct({ rubricId: rubricVersions.rubricId, key: rubricItems.itemKey })
      .from(rubricItems)
      .innerJoin(rubricVersions, eq(rubricVersions.id, rubricItems.rubricVersionId))
      .where(inArray(rubricVersions.rubricId, rubricIds.slice(i, i + CHUNK)));
    for (const r of rows) out.set(r.rubricId, (out.get(r.rubricId) ?? new Set()).add(r.key));
  }
  return out;
}

/** The newest version of each rubric: its row id and item keys (what the annotation pages show). */
export async function currentVersions(tx: Queryable, rubricIds: number[]): Promise<Map<number, { id: number; version: number; items: Set<string> }>> {
  const out = new Map<number, { id: number; version: number; items: Set<string> }>();
  for (let i = 0; i < rubricIds.length; i += CHUNK) {
    const rows = await tx
      .select({ rubricId: rubricVersions.rubricId, id: rubricVersions.id, version: rubricVersions.version, key: rubricItems.itemKey })
      .from(rubricVersions)
      .leftJoin(rubricItems, eq(rubricItems.rubricVersionId, rubricVersions.id))
      .where(and(inArray(rubricVersions.rubricId, rubricIds.slice(i, i + CHUNK)), sql`${rubricVersions.version} = (select max(v.version) from rubric_versions v where v.rubric_id = ${rubricVersions.rubricId})`));
    for (const r of rows) {
      const v = out.get(r.rubricId) ?? { id: r.id, version: r.version, items: new Set<string>() };
      if (r.key !== null) v.items.add(r.key);
      out.set(r.rubricId, v);
    }
  }
  return out;
}

/**
 * The version a label written now is given against: the current one, unless the label names an item
 * only an earlier version has (then which version the person read is unknown: null, never a guess).
 */
export function versionForLabel(current: { id: number; items: Set<string> } | undefined, item: string): number | null {
  if (!current) return null;
  return item === '' || isAnswerUnit(item) || current.items.has(item) ? current.id : null;
}

/**
 * A label key of the whole answer or of one of its sentences, which no rubric item is: a campaign's
 * answer-level binary and numeric ratings and its claim marks `claim:<n>` (campaigns/units.ts; the prefix
 * is annotation-claims.ts's CLAIM_PREFIX, read here by claimIndex of claim-marks.ts). Exactly these: any other
 * `answer:` or `claim:` key is no unit anything asks for.
 */
export const isAnswerUnit = (item: string): boolean => item === ANSWER_SCALE_KEYS.binary || item === ANSWER_SCALE_KEYS.numeric || claimIndex(item) !== null;

/** A label's item must be an item of the answer's rubric (any version) or an answer-level unit (isAnswerUnit). */
export function checkItem(keys: Map<number, Set<string>>, loc: Located, rubricId: number | null, item: string): void {
  if (isAnswerUnit(item)) return;
  if (rubricId === null) throw locatedError(loc, ['item'], `answer has no rubric, so item '${item}' cannot be labelled`);
  if (!keys.get(rubricId)?.has(item)) throw locatedError(loc, ['item'], `unknown item '${item}' for this answer's rubric`);
}

/** The unique key of a label (migration 0010): a campaign's labels are apart from the plain ones (null, not distinct). */
export const LABEL_KEY = [labels.answerId, labels.itemKey, labels.annotator, labels.campaignId];

/** What a write of labels did: new labels, labels it replaced with another value, labels sent again as they are stored. */
export interface LabelWrites {
  inserted: number;
  updated: number;
  unchanged: number;
}

/**
 * Insert or replace (one key per answer × item × annotator × campaign): callers decide beforehand whether
 * replacing is allowed. A label sent again as it is stored (same label, kind, rubric version and claim
 * sentence) is left as it is, its time included, and counted unchanged: a page saved twice or a client's
 * retry changed nothing, and reporting it updated said otherwise.
 */
export async function upsertLabels(tx: Queryable, values: Array<typeof labels.$inferInsert>): Promise<LabelWrites> {
  if (values.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
  const rows = await tx
    .insert(labels)
    .values(values)
    .onConflictDoUpdate({
      target: LABEL_KEY,
      // claim_sentence too: a replaced claim mark is one given on the sentence the new write says (null: unknown).
      set: { label: sql`excluded.label`, kind: sql`excluded.kind`, rubricVersionId: sql`excluded.rubric_version_id`, claimSentence: sql`excluded.claim_sentence`, createdAt: sql`now()` },
      // An identical row is not rewritten, so it does not come back: values not returned are the unchanged ones.
      where: sql`(${labels.label}, ${labels.kind}, ${labels.rubricVersionId}, ${labels.claimSentence}) is distinct from (excluded.label, excluded.kind, excluded.rubric_version_id, excluded.claim_sentence)`,
    })
    // xmax = 0 only on a freshly inserted row version: tells inserts from updates in one statement.
    .returning({ inserted: sql<boolean>`(xmax = 0)` });
  const inserted = rows.filter((r) => r.inserted).length;
  return { inserted, updated: rows.length - inserted, unchanged: values.length - rows.length };
}

/** One label, saved as the annotator goes (insert or replace): an item of the rubric's current version or an answer-level unit, with a label of its scale (label-values.ts). */
export async function saveLabel(database: Database, input: LabelInput): Promise<{ created: boolean; unchanged: boolean }> {
  if (input.label.trim() === '') throw badInput('label: must not be empty');
  if (input.annotator.trim() === '') throw badInput('annotator: must not be empty');
  return database.db.transaction(async (tx) => {
    const [a] = await tx.select({ id: answers.id, task: answers.task, rubricId: answers.rubricId, text: answers.text }).from(answers).where(eq(answers.id, input.answerId));
    if (!a) throw notFound(`answer ${input.answerId} not found`);
    refuseUndescribed(a);
    const item = input.item ?? '';
    // A claim mark names a sentence of today's split (claim-marks.ts): one the answer lacks is refused, and the one given is recorded.
    const sentences = sentencesOf(a.text);
    const outOfRange = claimRangeProblem(item, sentences.length);
    if (outOfRange) throw badInput(`answer ${a.id}: ${outOfRange}; nothing saved`);
    const current = a.rubricId === null ? undefined : (await currentVersions(tx, [a.rubricId])).get(a.rubricId);
    if (item !== '') {
      const loc: Located = { value: null, file: `answer ${a.id}`, line: null, lineOf: () => null };
      checkItem(a.rubricId === null ? new Map() : await itemKeys(tx, [a.rubricId]), loc, a.rubricId, item);
      // As the workspace: an item only an earlier version has is asked by no queue, so a label of it counts nowhere.
      if (!isAnswerUnit(item) && current && !current.items.has(item)) throw badInput(`answer ${a.id}: item '${item}': not an item of version ${current.version} (the current one) of this answer's rubric; nothing saved`);
    }
    const label = storedLabelValue(`answer ${a.id}`, item, input.label);
    const version = a.rubricId === null ? null : versionForLabel(current, item);
    const r = await upsertLabels(tx, [{ answerId: a.id, itemKey: item, annotator: input.annotator, kind: input.kind ?? 'human', label, rubricVersionId: version, claimSentence: claimStamp(item, sentences) }]);
    // An identical re-send rewrites nothing (upsertLabels): it must not read as a replacement.
    return { created: r.inserted === 1, unchanged: r.unchanged === 1 };
  });
}

export interface LabelView {
  answerId: number;
  answer: string;
  run: string;
  model: string;
  item: string | null;
  annotator: string;
  kind: string;
  label: string;
  /** The campaign the label was given in (null: the plain pages or an import). */
  campaignId: number | null;
  /** The rubric version number it was given against; null when unknown. */
  rubricVersion: number | null;
  createdAt: Date;
}

/** Labels in the calibration file's vocabulary (answer, item, model, rater, kind, label). */
export async function listLabels(
  database: Database,
  opts: { answerIds?: number[]; annotator?: string; run?: string; kind?: 'human' | 'judge'; limit?: number; offset?: number } = {},
): Promise<{ total: number; labels: LabelView[] }> {
  const c: SQL[] = [];
  if (opts.answerIds) c.push(opts.answerIds.length ? inArray(labels.answerId, opts.answerIds) : sql`false`);
  if (opts.annotator) c.push(eq(labels.annotator, opts.annotator));
  if (opts.run) c.push(eq(runs.name, opts.run));
  if (opts.kind) c.push(eq(labels.kind, opts.kind));
  const cond = c.length ? and(...c) : undefined;
  const db = database.db;
  const base = () =>
    db
      .select({ l: labels, externalId: answers.externalId, run: runs.name, model: runs.model, version: rubricVersions.version })
      .from(labels)
      .innerJoin(answers, eq(answers.id, labels.answerId))
      .innerJoin(runs, eq(runs.id, answers.runId))
      .leftJoin(rubricVersions, eq(rubricVersions.id, labels.rubricVersionId));
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(labels).innerJoin(answers, eq(answers.id, labels.answerId)).innerJoin(runs, eq(runs.id, answers.runId)).where(cond);
  const rows = await base()
    .where(cond)
    .orderBy(asc(labels.answerId), asc(labels.itemKey), asc(labels.annotator), sql`${labels.campaignId} nulls first`)
    .limit(opts.limit ?? 1000)
    .offset(opts.offset ?? 0);
  return {
    total,
    labels: rows.map((r) => ({
      answerId: r.l.answerId,
      answer: r.externalId,
      run: r.run,
      model: r.model,
      item: r.l.itemKey === '' ? null : r.l.itemKey,
      annotator: r.l.annotator,
      kind: r.l.kind,
      label: r.l.label,
      campaignId: r.l.campaignId,
      rubricVersion: r.version,
      createdAt: r.l.createdAt,
    })),
  };
}
