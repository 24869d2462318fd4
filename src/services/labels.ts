import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { badInput, notFound } from '../domain/errors.ts';
import type { Database, Queryable } from '../db/client.ts';
import { answers, LABEL_KINDS, labels, rubricItems, rubricVersions, runs } from '../db/schema.ts';
import { parseCsv } from './import-csv.ts';
import { locatedError, parseJsonl, parseLocated, type ImportFile, type Located } from './import-parse.ts';

/**
 * Human (and judge) labels for calibration, one per (answer, item, annotator): saving again replaces
 * the label, so annotation pages can save as the annotator goes. item '' = a label of the whole answer.
 */

const scalar = z.union([z.string().min(1), z.number(), z.boolean()]).transform(String);

export const LabelRowSchema = z
  .strictObject({
    answer: scalar.optional(),
    answer_id: z.union([z.number().int().positive(), z.string().regex(/^\d+$/, 'must be a whole number')]).transform(Number).optional(),
    run: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    item: z.string().min(1).nullable().optional(),
    rater: z.string().min(1).optional(),
    annotator: z.string().min(1).optional(),
    kind: z.enum(LABEL_KINDS).optional(),
    label: scalar,
  })
  .refine((r) => r.answer !== undefined || r.answer_id !== undefined, { path: ['answer'], message: 'required ("answer" with its run, or "answer_id")' })
  .refine((r) => r.rater !== undefined || r.annotator !== undefined, { path: ['rater'], message: 'required ("rater" or "annotator")' });

export interface LabelInput {
  answerId: number;
  item?: string | null;
  annotator: string;
  kind?: (typeof LABEL_KINDS)[number];
  label: string;
}

export interface LabelImportResult {
  inserted: number;
  updated: number;
}

interface Resolvable {
  loc: Located;
  row: z.output<typeof LabelRowSchema>;
}

interface Candidate {
  id: number;
  rubricId: number | null;
  externalId: string;
  run: string;
  model: string;
}

const CHUNK = 1000;

/** Every answer the rows could mean, fetched in bulk (a query per row is slow on large label sets). */
async function fetchCandidates(tx: Queryable, rows: Resolvable[]): Promise<{ byExternal: Map<string, Candidate[]>; byId: Map<number, Candidate> }> {
  const select = () =>
    tx
      .select({ id: answers.id, rubricId: answers.rubricId, externalId: answers.externalId, run: runs.name, model: runs.model })
      .from(answers)
      .innerJoin(runs, eq(runs.id, answers.runId));
  const externals = [...new Set(rows.flatMap((r) => (r.row.answer_id === undefined ? [r.row.answer!] : [])))];
  const ids = [...new Set(rows.flatMap((r) => (r.row.answer_id === undefined ? [] : [r.row.answer_id])))];
  const byExternal = new Map<string, Candidate[]>();
  const byId = new Map<number, Candidate>();
  for (let i = 0; i < externals.length; i += CHUNK) {
    for (const c of await select().where(inArray(answers.externalId, externals.slice(i, i + CHUNK))).orderBy(asc(answers.id))) {
      byExternal.set(c.externalId, [...(byExternal.get(c.externalId) ?? []), c]);
    }
  }
  for (let i = 0; i < ids.length; i += CHUNK) {
    for (const c of await select().where(inArray(answers.id, ids.slice(i, i + CHUNK)))) byId.set(c.id, c);
  }
  return { byExternal, byId };
}

function resolveAnswer(index: Awaited<ReturnType<typeof fetchCandidates>>, r: Resolvable, defaults: { run?: string }): Candidate {
  const { row, loc } = r;
  if (row.answer_id !== undefined) {
    const a = index.byId.get(row.answer_id);
    if (!a) throw locatedError(loc, ['answer_id'], `unknown answer ${row.answer_id}`);
    return a;
  }
  const run = row.run ?? defaults.run;
  const found = (index.byExternal.get(row.answer!) ?? []).filter((c) => (!run || c.run === run) && (!row.model || c.model === row.model));
  const scope = [run && `run '${run}'`, row.model && `model '${row.model}'`].filter(Boolean).join(', ');
  if (found.length === 0) throw locatedError(loc, ['answer'], `unknown answer '${row.answer}'${scope ? ` in ${scope}` : ''}`);
  if (found.length > 1) {
    throw locatedError(loc, ['answer'], `answer '${row.answer}' is in several runs (${found.map((f) => f.run).join(', ')}); add "run"`);
  }
  return found[0]!;
}

/** Item keys of every version of the given rubrics: a label may concern an item of any version. */
async function itemKeys(tx: Queryable, rubricIds: number[]): Promise<Map<number, Set<string>>> {
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

function checkItem(keys: Map<number, Set<string>>, loc: Located, rubricId: number | null, item: string): void {
  if (rubricId === null) throw locatedError(loc, ['item'], `answer has no rubric, so item '${item}' cannot be labelled`);
  if (!keys.get(rubricId)?.has(item)) throw locatedError(loc, ['item'], `unknown item '${item}' for this answer's rubric`);
}

async function upsert(tx: Queryable, values: Array<typeof labels.$inferInsert>): Promise<LabelImportResult> {
  if (values.length === 0) return { inserted: 0, updated: 0 };
  const rows = await tx
    .insert(labels)
    .values(values)
    .onConflictDoUpdate({
      target: [labels.answerId, labels.itemKey, labels.annotator],
      set: { label: sql`excluded.label`, kind: sql`excluded.kind`, createdAt: sql`now()` },
    })
    // xmax = 0 only on a freshly inserted row version: tells inserts from updates in one statement.
    .returning({ inserted: sql<boolean>`(xmax = 0)` });
  const inserted = rows.filter((r) => r.inserted).length;
  return { inserted, updated: rows.length - inserted };
}

/** JSONL or CSV (by extension); all or nothing; errors name file, line and field. */
export async function importLabels(database: Database, file: ImportFile, defaults: { run?: string } = {}): Promise<LabelImportResult> {
  const locs = /\.csv$/i.test(file.path) ? parseCsv(file) : parseJsonl(file);
  const parsed = locs.map((loc) => ({ loc, row: parseLocated(LabelRowSchema, loc) }));
  const seen = new Map<string, number | null>();
  return database.db.transaction(async (tx) => {
    const index = await fetchCandidates(tx, parsed);
    const resolved = parsed.map((r) => resolveAnswer(index, r, defaults));
    const keys = await itemKeys(tx, [...new Set(resolved.flatMap((a) => (a.rubricId === null ? [] : [a.rubricId])))]);
    const values: Array<typeof labels.$inferInsert> = [];
    for (const [i, r] of parsed.entries()) {
      const answer = resolved[i]!;
      const item = r.row.item ?? '';
      if (item !== '') checkItem(keys, r.loc, answer.rubricId, item);
      const annotator = (r.row.rater ?? r.row.annotator)!;
      const key = `${answer.id}\u0000${item}\u0000${annotator}`;
      if (seen.has(key)) throw locatedError(r.loc, ['label'], `second label by '${annotator}' for the same answer and item (first on line ${seen.get(key)})`);
      seen.set(key, r.loc.line);
      values.push({ answerId: answer.id, itemKey: item, annotator, kind: r.row.kind ?? 'human', label: r.row.label });
    }
    let total: LabelImportResult = { inserted: 0, updated: 0 };
    for (let i = 0; i < values.length; i += CHUNK) {
      const part = await upsert(tx, values.slice(i, i + CHUNK));
      total = { inserted: total.inserted + part.inserted, updated: total.updated + part.updated };
    }
    return total;
  });
}

/** One label, saved as the annotator goes (insert or replace). */
export async function saveLabel(database: Database, input: LabelInput): Promise<{ created: boolean }> {
  if (input.label.trim() === '') throw badInput('label: must not be empty');
  if (input.annotator.trim() === '') throw badInput('annotator: must not be empty');
  return database.db.transaction(async (tx) => {
    const [a] = await tx.select({ id: answers.id, rubricId: answers.rubricId }).from(answers).where(eq(answers.id, input.answerId));
    if (!a) throw notFound(`answer ${input.answerId} not found`);
    const item = input.item ?? '';
    if (item !== '') {
      const loc: Located = { value: null, file: `answer ${a.id}`, line: null, lineOf: () => null };
      checkItem(a.rubricId === null ? new Map() : await itemKeys(tx, [a.rubricId]), loc, a.rubricId, item);
    }
    const r = await upsert(tx, [{ answerId: a.id, itemKey: item, annotator: input.annotator, kind: input.kind ?? 'human', label: input.label }]);
    return { created: r.inserted === 1 };
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
  const base = () => db.select({ l: labels, externalId: answers.externalId, run: runs.name, model: runs.model }).from(labels).innerJoin(answers, eq(answers.id, labels.answerId)).innerJoin(runs, eq(runs.id, answers.runId));
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(labels).innerJoin(answers, eq(answers.id, labels.answerId)).innerJoin(runs, eq(runs.id, answers.runId)).where(cond);
  const rows = await base()
    .where(cond)
    .orderBy(asc(labels.answerId), asc(labels.itemKey), asc(labels.annotator))
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
      createdAt: r.l.createdAt,
    })),
  };
}
