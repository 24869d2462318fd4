import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { AssayError } from '../domain/errors.ts';
import type { Database, Queryable } from '../db/client.ts';
import { answers, labels, runs } from '../db/schema.ts';
import { parseCsv } from './import-csv.ts';
import { locatedError, parseJsonl, parseLocated, where, type ImportFile, type Located } from './import-parse.ts';
import { checkItem, CHUNK, itemKeys, LabelRowSchema } from './labels.ts';

/**
 * `assay import labels` and POST /api/labels. A label file is calibration evidence: a label that lands
 * on the wrong answer, or silently overwrites another one, moves published agreement figures. So an
 * answer reference must name exactly one answer (an id found in several runs is refused, listing them),
 * and an import that would change a stored label is refused unless the caller asks for replacement
 * (`replace`); the refusal says how many and shows a few. Labels equal to the stored ones are counted
 * as unchanged, so importing the same file twice needs no flag. All or nothing.
 */

export interface LabelImportOptions {
  /** Run for rows without "run". */
  run?: string;
  /** Allow changing stored labels (otherwise such an import is refused as a conflict). */
  replace?: boolean;
}

export interface LabelImportResult {
  inserted: number;
  replaced: number;
  unchanged: number;
  /** The runs whose answers the file labels, sorted. */
  runs: string[];
}

export interface Resolvable {
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

function resolveAnswer(index: Awaited<ReturnType<typeof fetchCandidates>>, r: Resolvable, defaults: LabelImportOptions): Candidate {
  const { row, loc } = r;
  if (row.answer_id !== undefined) {
    const a = index.byId.get(row.answer_id);
    if (!a) throw locatedError(loc, ['answer_id'], `unknown answer ${row.answer_id}`);
    // A row may restate its answer but not name another one: which of the two would it be labelling?
    if (row.answer !== undefined && row.answer !== a.externalId) throw locatedError(loc, ['answer'], `answer ${a.id} is '${a.externalId}' of run '${a.run}', this row says '${row.answer}'`);
    if (row.run !== undefined && row.run !== a.run) throw locatedError(loc, ['run'], `answer ${a.id} is in run '${a.run}', this row says '${row.run}'`);
    if (row.model !== undefined && row.model !== a.model) throw locatedError(loc, ['model'], `answer ${a.id} is of model '${a.model}', this row says '${row.model}'`);
    return a;
  }
  const run = row.run ?? defaults.run;
  const found = (index.byExternal.get(row.answer!) ?? []).filter((c) => (!run || c.run === run) && (!row.model || c.model === row.model));
  const scope = [run && `run '${run}'`, row.model && `model '${row.model}'`].filter(Boolean).join(', ');
  if (found.length === 0) throw locatedError(loc, ['answer'], `unknown answer '${row.answer}'${scope ? ` in ${scope}` : ''}`);
  if (found.length > 1) {
    const names = [...new Set(found.map((f) => f.run))].sort();
    throw locatedError(loc, ['answer'], `answer '${row.answer}' is in ${names.length} runs (${names.join(', ')}); name the run (a "run" field, or --run / ?run=)`);
  }
  return found[0]!;
}

type Stored = Pick<typeof labels.$inferSelect, 'answerId' | 'itemKey' | 'annotator' | 'kind' | 'label'>;
const keyOf = (l: Pick<Stored, 'answerId' | 'itemKey' | 'annotator'>) => `${l.answerId}\u0000${l.itemKey}\u0000${l.annotator}`;

async function storedLabels(tx: Queryable, answerIds: number[]): Promise<Map<string, Stored>> {
  const out = new Map<string, Stored>();
  for (let i = 0; i < answerIds.length; i += CHUNK) {
    const rows = await tx
      .select({ answerId: labels.answerId, itemKey: labels.itemKey, annotator: labels.annotator, kind: labels.kind, label: labels.label })
      .from(labels)
      .where(inArray(labels.answerId, answerIds.slice(i, i + CHUNK)));
    for (const r of rows) out.set(keyOf(r), r);
  }
  return out;
}

const quote = (s: string) => JSON.stringify(s);

function describeChange(loc: Located, answer: Candidate, before: Stored, after: typeof labels.$inferInsert): string {
  const what = [`answer ${quote(answer.externalId)} of run ${quote(answer.run)}`, before.itemKey ? `item ${quote(before.itemKey)}` : 'whole answer', `rater ${quote(before.annotator)}`];
  const change = [before.label !== after.label && `${quote(before.label)} → ${quote(after.label)}`, before.kind !== after.kind && `kind ${before.kind} → ${after.kind}`].filter(Boolean);
  return `${where(loc.file, loc.line)} ${what.join(', ')}: ${change.join(', ')}`;
}

function replaceRefused(file: ImportFile, examples: string[], total: number): AssayError {
  const more = total > examples.length ? `; and ${total - examples.length} more` : '';
  return new AssayError(
    'conflict',
    `${file.path}: would replace ${total} stored label${total === 1 ? '' : 's'} (${examples.join('; ')}${more}); nothing written — ` +
      'to replace them, import again with --replace (API: ?replace=true)',
  );
}

const EXAMPLES = 3;

/** JSONL or CSV (by extension); all or nothing; errors name file, line and field. */
export async function importLabels(database: Database, file: ImportFile, opts: LabelImportOptions = {}): Promise<LabelImportResult> {
  const parsed = parseLabelFile(file);
  return database.db.transaction((tx) => storeLabelFile(tx, file, parsed, opts));
}

/** The rows of a label file, checked by the schema (nothing read from the database yet). */
export function parseLabelFile(file: ImportFile): Resolvable[] {
  const locs = /\.csv$/i.test(file.path) ? parseCsv(file) : parseJsonl(file);
  return locs.map((loc) => ({ loc, row: parseLocated(LabelRowSchema, loc) }));
}

/** Stores a parsed label file inside the caller's transaction (an import of a run export is one). */
export async function storeLabelFile(tx: Queryable, file: ImportFile, parsed: Resolvable[], opts: LabelImportOptions = {}): Promise<LabelImportResult> {
  const seen = new Map<string, number | null>();
  const index = await fetchCandidates(tx, parsed);
  const resolved = parsed.map((r) => resolveAnswer(index, r, opts));
  const keys = await itemKeys(tx, [...new Set(resolved.flatMap((a) => (a.rubricId === null ? [] : [a.rubricId])))]);
  const stored = await storedLabels(tx, [...new Set(resolved.map((a) => a.id))]);
  const fresh: Array<typeof labels.$inferInsert> = [];
  const freshFrom: Array<{ loc: Located; answer: Candidate }> = [];
  const changed: Array<typeof labels.$inferInsert> = [];
  const examples: string[] = [];
  let unchanged = 0;
  for (const [i, r] of parsed.entries()) {
    const answer = resolved[i]!;
    const item = r.row.item ?? '';
    if (item !== '') checkItem(keys, r.loc, answer.rubricId, item);
    const annotator = (r.row.rater ?? r.row.annotator)!;
    const value = { answerId: answer.id, itemKey: item, annotator, kind: r.row.kind ?? 'human', label: r.row.label };
    const key = keyOf(value);
    if (seen.has(key)) throw locatedError(r.loc, ['label'], `second label by '${annotator}' for the same answer and item (first on line ${seen.get(key)})`);
    seen.set(key, r.loc.line);
    const before = stored.get(key);
    if (!before) {
      fresh.push(value);
      freshFrom.push({ loc: r.loc, answer });
    }
    else if (before.label === value.label && before.kind === value.kind) unchanged++;
    else {
      changed.push(value);
      if (examples.length < EXAMPLES) examples.push(describeChange(r.loc, answer, before, value));
    }
  }
  if (changed.length > 0 && !opts.replace) throw replaceRefused(file, examples, changed.length);
  // A concurrent writer may have stored some of the fresh labels since the read above. The same label
  // is no conflict (two seeders write the same rows); a different one is a replacement like any other.
  let inserted = 0;
  const raced: number[] = [];
  for (let i = 0; i < fresh.length; i += CHUNK) {
    const chunk = fresh.slice(i, i + CHUNK);
    const written = await tx
      .insert(labels)
      .values(chunk)
      .onConflictDoNothing()
      .returning({ answerId: labels.answerId, itemKey: labels.itemKey, annotator: labels.annotator });
    inserted += written.length;
    if (written.length === chunk.length) continue;
    const done = new Set(written.map(keyOf));
    chunk.forEach((v, j) => done.has(keyOf(v as Stored)) || raced.push(i + j));
  }
  if (raced.length > 0) {
    const now = await storedLabels(tx, [...new Set(raced.map((j) => fresh[j]!.answerId))]);
    for (const j of raced) {
      const value = fresh[j]!;
      const s = now.get(keyOf(value as Stored));
      if (s && s.label === value.label && s.kind === value.kind) unchanged++;
      else {
        changed.push(value);
        if (s && examples.length < EXAMPLES) examples.push(describeChange(freshFrom[j]!.loc, freshFrom[j]!.answer, s, value));
      }
    }
    if (changed.length > 0 && !opts.replace) throw replaceRefused(file, examples, changed.length);
  }
  for (let i = 0; i < changed.length; i += CHUNK) {
    await tx
      .insert(labels)
      .values(changed.slice(i, i + CHUNK))
      .onConflictDoUpdate({
        target: [labels.answerId, labels.itemKey, labels.annotator],
        set: { label: sql`excluded.label`, kind: sql`excluded.kind`, createdAt: sql`now()` },
      });
  }
  return { inserted, replaced: changed.length, unchanged, runs: [...new Set(resolved.map((a) => a.run))].sort() };
}
