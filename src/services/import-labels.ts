import { and, asc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { AssayError } from '../domain/errors.ts';
import type { Database, Queryable } from '../db/client.ts';
import { answers, labels, rubricItems, rubricVersions, runs } from '../db/schema.ts';
import { parseCsv } from './import-csv.ts';
import { locatedError, parseJsonl, parseLocated, where, type ImportFile, type Located } from './import-parse.ts';
import { claimIndex, claimRangeProblem, claimStamp, sentencesOf } from './claim-marks.ts';
import { checkItem, CHUNK, itemKeys, LABEL_KEY, LabelRowSchema, versionForLabel } from './labels.ts';

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
  /**
   * Rows without `rubric_version` were given against their rubric's current version (the seed, which
   * imports the rubrics and their labels together). Otherwise such a row's version is unknown (null).
   */
  currentVersion?: boolean;
  /**
   * The campaign of each parsed row, by index (an import of a run export: its labels name their campaign);
   * without it every row is a plain label (campaign null).
   */
  campaignIds?: ReadonlyArray<number | null>;
  /**
   * The sentence hash of each parsed row's claim mark, by index (a run export carries the stored one, null
   * included); a row without one records today's sentence n, as a mark given in the app does (claim-marks.ts).
   */
  claimSentences?: ReadonlyArray<string | null | undefined>;
  /**
   * When each parsed row's label was given, by index (a run export's, as ISO text: the database reads it to
   * the microsecond, where a Date keeps milliseconds); otherwise the time of the import.
   */
  createdAt?: ReadonlyArray<string | undefined>;
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
    // The import's run (--run / ?run=) holds for every row without its own: an answer of another run is not one it names.
    if (row.run === undefined && defaults.run !== undefined && defaults.run !== a.run) throw locatedError(loc, ['answer_id'], `answer ${a.id} is in run '${a.run}', ?run= / --run says '${defaults.run}'`);
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

type Stored = Pick<typeof labels.$inferSelect, 'answerId' | 'itemKey' | 'annotator' | 'campaignId' | 'kind' | 'label' | 'rubricVersionId' | 'claimSentence'>;
/** LABEL_KEY as text: a campaign's label and the plain one of the same unit are two labels. */
/** A label row to write; created_at as SQL (an exported time read to the microsecond), or the default now(). */
type LabelInsert = Omit<typeof labels.$inferInsert, 'createdAt'> & { createdAt?: SQL };

const keyOf = (l: { answerId: number; itemKey: string; annotator: string; campaignId?: number | null }) => `${l.answerId}\u0000${l.itemKey}\u0000${l.annotator}\u0000${l.campaignId ?? ''}`;

/**
 * The stored labels of the answers that the import could meet: the plain ones, and those of the campaigns
 * its rows name (a run export's); never another campaign's (those are apart, labels.ts).
 */
async function storedLabels(tx: Queryable, answerIds: number[], campaignIds: number[] = []): Promise<Map<string, Stored>> {
  const out = new Map<string, Stored>();
  for (let i = 0; i < answerIds.length; i += CHUNK) {
    const rows = await tx
      .select({ answerId: labels.answerId, itemKey: labels.itemKey, annotator: labels.annotator, campaignId: labels.campaignId, kind: labels.kind, label: labels.label, rubricVersionId: labels.rubricVersionId, claimSentence: labels.claimSentence })
      .from(labels)
      .where(and(inArray(labels.answerId, answerIds.slice(i, i + CHUNK)), campaignIds.length ? or(isNull(labels.campaignId), inArray(labels.campaignId, campaignIds)) : isNull(labels.campaignId)));
    for (const r of rows) out.set(keyOf(r), r);
  }
  return out;
}

const quote = (s: string) => JSON.stringify(s);

/** A row that names its rubric version changes a stored label given against another (or an unknown) one. */
const versionChanged = (before: Stored, after: LabelInsert) => after.rubricVersionId != null && after.rubricVersionId !== before.rubricVersionId;
/**
 * A claim mark given on another sentence than the stored one (both known): the same label on claim n is
 * then a mark of another sentence, a change. A stored mark of unknown sentence (before migration 0011) is
 * left as it is by the same label.
 */
const sentenceChanged = (before: Stored, after: LabelInsert) => before.claimSentence != null && after.claimSentence != null && after.claimSentence !== before.claimSentence;
const same = (before: Stored, after: LabelInsert) => before.label === after.label && before.kind === after.kind && !versionChanged(before, after) && !sentenceChanged(before, after);

type Versions = Map<number, Map<number, { id: number; items: Set<string> }>>;

/** Every version of the rubrics, by version number, with its items: what a row's `rubric_version` names. */
async function rubricVersionIndex(tx: Queryable, rubricIds: number[]): Promise<Versions> {
  const out: Versions = new Map();
  for (let i = 0; i < rubricIds.length; i += CHUNK) {
    const rows = await tx
      .select({ rubricId: rubricVersions.rubricId, id: rubricVersions.id, version: rubricVersions.version, key: rubricItems.itemKey })
      .from(rubricVersions)
      .leftJoin(rubricItems, eq(rubricItems.rubricVersionId, rubricVersions.id))
      .where(inArray(rubricVersions.rubricId, rubricIds.slice(i, i + CHUNK)));
    for (const r of rows) {
      const byNo = out.get(r.rubricId) ?? new Map<number, { id: number; items: Set<string> }>();
      const v = byNo.get(r.version) ?? { id: r.id, items: new Set<string>() };
      if (r.key !== null) v.items.add(r.key);
      out.set(r.rubricId, byNo.set(r.version, v));
    }
  }
  return out;
}

/** The rubric version row a label row was given against: the one it names, the current one for the seed, else unknown (null). */
function rowVersion(r: Resolvable, answer: Candidate, item: string, versions: Versions, currentVersion: boolean): number | null {
  const byNo = answer.rubricId === null ? undefined : versions.get(answer.rubricId);
  const n = r.row.rubric_version;
  if (n === undefined) {
    if (!currentVersion || !byNo || byNo.size === 0) return null;
    const newest = byNo.get(Math.max(...byNo.keys()))!;
    return versionForLabel(newest, item);
  }
  if (!byNo) throw locatedError(r.loc, ['rubric_version'], `answer has no rubric, so it has no rubric version ${n}`);
  const v = byNo.get(n);
  if (!v) throw locatedError(r.loc, ['rubric_version'], `the answer's rubric has no version ${n} (it has ${[...byNo.keys()].sort((a, b) => a - b).join(', ')})`);
  if (versionForLabel(v, item) === null) throw locatedError(r.loc, ['item'], `item '${item}' is not an item of version ${n} of the answer's rubric`);
  return v.id;
}

function describeChange(loc: Located, answer: Candidate, before: Stored, after: LabelInsert, versionNo: (id: number | null | undefined) => string): string {
  const what = [`answer ${quote(answer.externalId)} of run ${quote(answer.run)}`, before.itemKey ? `item ${quote(before.itemKey)}` : 'whole answer', `rater ${quote(before.annotator)}`];
  const change = [
    before.label !== after.label && `${quote(before.label)} → ${quote(after.label)}`,
    before.kind !== after.kind && `kind ${before.kind} → ${after.kind}`,
    versionChanged(before, after) && `rubric version ${versionNo(before.rubricVersionId)} → ${versionNo(after.rubricVersionId)}`,
    sentenceChanged(before, after) && `claim given on another sentence (${before.claimSentence} → ${after.claimSentence})`,
  ].filter(Boolean);
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

/** Today's sentences of each answer some row gives a claim mark (texts read only for those). */
async function claimSentencesOf(tx: Queryable, parsed: Resolvable[], resolved: Candidate[]): Promise<Map<number, string[]>> {
  const ids = [...new Set(parsed.flatMap((r, i) => (claimIndex(r.row.item ?? '') === null ? [] : [resolved[i]!.id])))];
  const out = new Map<number, string[]>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    for (const a of await tx.select({ id: answers.id, text: answers.text }).from(answers).where(inArray(answers.id, ids.slice(i, i + CHUNK)))) out.set(a.id, sentencesOf(a.text));
  }
  return out;
}

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
  const rubricIds = [...new Set(resolved.flatMap((a) => (a.rubricId === null ? [] : [a.rubricId])))];
  const keys = await itemKeys(tx, rubricIds);
  const versions = await rubricVersionIndex(tx, rubricIds);
  const numberOf = new Map([...versions.values()].flatMap((byNo) => [...byNo].map(([n, v]) => [v.id, n] as const)));
  const versionNo = (id: number | null | undefined) => (id == null ? 'unknown' : String(numberOf.get(id) ?? '?'));
  const campaignOf = (i: number) => opts.campaignIds?.[i] ?? null;
  const campaignIds = [...new Set(opts.campaignIds ?? [])].filter((c): c is number => c !== null);
  const stored = await storedLabels(tx, [...new Set(resolved.map((a) => a.id))], campaignIds);
  const sentences = await claimSentencesOf(tx, parsed, resolved);
  const fresh: Array<LabelInsert> = [];
  const freshFrom: Array<{ loc: Located; answer: Candidate }> = [];
  const changed: Array<LabelInsert> = [];
  const examples: string[] = [];
  let unchanged = 0;
  for (const [i, r] of parsed.entries()) {
    const answer = resolved[i]!;
    const item = r.row.item ?? '';
    if (item !== '') checkItem(keys, r.loc, answer.rubricId, item);
    // A claim index the answer's sentences do not have today is refused. The index is read against today's
    // split (it is checked against it), so the mark records today's sentence n, as one given in the app does:
    // once the split moves it is stale, never counted as a mark of the sentence that has index n then.
    const today = sentences.get(answer.id) ?? [];
    const outOfRange = claimRangeProblem(item, today.length);
    if (outOfRange) throw locatedError(r.loc, ['item'], outOfRange);
    const annotator = (r.row.rater ?? r.row.annotator)!;
    const campaignId = campaignOf(i);
    const value = { answerId: answer.id, itemKey: item, annotator, campaignId, kind: r.row.kind ?? 'human', label: r.row.label, rubricVersionId: rowVersion(r, answer, item, versions, opts.currentVersion === true), claimSentence: opts.claimSentences?.[i] !== undefined ? opts.claimSentences[i]! : claimStamp(item, today), ...(opts.createdAt?.[i] ? { createdAt: sql`${opts.createdAt[i]}::timestamptz` } : {}) };
    const key = keyOf(value);
    if (seen.has(key)) throw locatedError(r.loc, ['label'], `second label by '${annotator}' for the same answer and item${campaignId === null ? '' : ' in the same campaign'} (first on line ${seen.get(key)})`);
    seen.set(key, r.loc.line);
    const before = stored.get(key);
    if (!before) {
      fresh.push(value);
      freshFrom.push({ loc: r.loc, answer });
    }
    else if (same(before, value)) unchanged++;
    else {
      changed.push(value);
      if (examples.length < EXAMPLES) examples.push(describeChange(r.loc, answer, before, value, versionNo));
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
      .returning({ answerId: labels.answerId, itemKey: labels.itemKey, annotator: labels.annotator, campaignId: labels.campaignId });
    inserted += written.length;
    if (written.length === chunk.length) continue;
    const done = new Set(written.map(keyOf));
    chunk.forEach((v, j) => done.has(keyOf(v as Stored)) || raced.push(i + j));
  }
  if (raced.length > 0) {
    const now = await storedLabels(tx, [...new Set(raced.map((j) => fresh[j]!.answerId))], campaignIds);
    for (const j of raced) {
      const value = fresh[j]!;
      const s = now.get(keyOf(value as Stored));
      if (s && same(s, value)) unchanged++;
      else {
        changed.push(value);
        if (s && examples.length < EXAMPLES) examples.push(describeChange(freshFrom[j]!.loc, freshFrom[j]!.answer, s, value, versionNo));
      }
    }
    if (changed.length > 0 && !opts.replace) throw replaceRefused(file, examples, changed.length);
  }
  for (let i = 0; i < changed.length; i += CHUNK) {
    await tx
      .insert(labels)
      .values(changed.slice(i, i + CHUNK))
      .onConflictDoUpdate({
        target: LABEL_KEY,
        // claim_sentence: a claim mark replaced from a file is one given on the sentence the row records (today's, or the export's).
        set: { label: sql`excluded.label`, kind: sql`excluded.kind`, rubricVersionId: sql`excluded.rubric_version_id`, claimSentence: sql`excluded.claim_sentence`, createdAt: sql`now()` },
      });
  }
  return { inserted, replaced: changed.length, unchanged, runs: [...new Set(resolved.map((a) => a.run))].sort() };
}
