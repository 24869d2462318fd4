import { inArray, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.ts';
import { answers, labels } from '../db/schema.ts';
import { parseCsv } from './import-csv.ts';
import { locatedError, parseJsonl, parseLocated, where, type ImportFile, type Located } from './import-parse.ts';
import { claimIndex, claimRangeProblem, claimStamp, sentencesOf } from './claim-marks.ts';
import { fetchCandidates, resolveAnswer, type Candidate, type Resolvable } from './import-labels-answers.ts';
import { describeChange, EXAMPLES, keyOf, replaceRefused, same, storedLabels, type LabelInsert, type Stored } from './import-labels-stored.ts';
import { rowVersion, rubricVersionIndex } from './import-labels-versions.ts';
import { describes, storedLabelValue } from './label-values.ts';
import { checkItem, CHUNK, itemKeys, LABEL_KEY, LabelRowSchema } from './labels.ts';

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

/** The parsed rows parseLabelFile returns and storeLabelFile takes (import-export-labels.ts imports it from here). */
export type { Resolvable };

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
    // The annotation path's rules (label-values.ts): a label no scale reads, or one of an answer with no
    // description, would be counted as inserted and then set aside (or, for an assembly, miscounted) by every report.
    if (!describes(answer.task)) throw locatedError(r.loc, ['answer'], `answer '${answer.externalId}' of run '${answer.run}' is of task '${answer.task}', which has no description to label; nothing written`);
    if (item !== '') checkItem(keys, r.loc, answer.rubricId, item);
    // Stored in the annotation path's form (verdicts lower case, pass/fail as true|false): the workspace
    // shows a stored label by that form, so 'Correct' as written would open unselected.
    const label = storedLabelValue(where(r.loc.file, r.loc.lineOf(['label']) ?? r.loc.line), item, r.row.label);
    // A claim index the answer's sentences do not have today is refused. The index is read against today's
    // split (it is checked against it), so the mark records today's sentence n, as one given in the app does:
    // once the split moves it is stale, never counted as a mark of the sentence that has index n then.
    const today = sentences.get(answer.id) ?? [];
    const outOfRange = claimRangeProblem(item, today.length);
    if (outOfRange) throw locatedError(r.loc, ['item'], outOfRange);
    const annotator = (r.row.rater ?? r.row.annotator)!;
    const campaignId = campaignOf(i);
    const value = { answerId: answer.id, itemKey: item, annotator, campaignId, kind: r.row.kind ?? 'human', label, rubricVersionId: rowVersion(r, answer, item, versions, opts.currentVersion === true), claimSentence: opts.claimSentences?.[i] !== undefined ? opts.claimSentences[i]! : claimStamp(item, today), ...(opts.createdAt?.[i] ? { createdAt: sql`${opts.createdAt[i]}::timestamptz` } : {}) };
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
