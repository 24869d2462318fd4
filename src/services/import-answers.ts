import { and, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { badInput } from '../domain/errors.ts';
import { Fields } from '../domain/fields.ts';
import type { Database, Queryable } from '../db/client.ts';
import { answers, puzzles, rubrics, runs } from '../db/schema.ts';
import { ANSWER_STATUSES, TASK_KINDS, type AnswerStatus, type TaskKind } from '../domain/answers.ts';
import { scoreOne } from './assemblies.ts';
import { fieldPath, locatedError, noEdgeSpaces, parseJsonl, parseLocated, type ImportFile, type Located } from './import-parse.ts';

/**
 * `assay import answers RUN.jsonl`: one JSON object per line (see src/services/README.md for the
 * fields). The run and model come from each row or from the command's defaults; rows may name several
 * runs. One bad line and nothing is written.
 */

const TokenCount = Fields.tokens;
const UsageSchema = z.looseObject({
  input_tokens: TokenCount.optional(),
  output_tokens: TokenCount.optional(),
  prompt_tokens: TokenCount.optional(),
  completion_tokens: TokenCount.optional(),
});

export const AnswerRowSchema = z.strictObject({
  id: z.union([Fields.answerExternalId, z.number().int()]).transform(String).pipe(noEdgeSpaces(Fields.answerExternalId)).optional(),
  run: noEdgeSpaces(Fields.run).optional(),
  model: noEdgeSpaces(Fields.model).optional(),
  effort: noEdgeSpaces(Fields.effort).optional(),
  tags: z.array(noEdgeSpaces(Fields.tag)).max(100).optional(),
  task: z.enum(TASK_KINDS).optional(),
  puzzle: Fields.ref.optional(),
  rubric: Fields.ref.optional(),
  text: Fields.answerText.nullable().optional(),
  status: z.enum(ANSWER_STATUSES).optional(),
  stop_reason: Fields.stopReason.nullable().optional(),
  finish_reason: Fields.stopReason.nullable().optional(),
  usage: UsageSchema.optional(),
  input_tokens: TokenCount.optional(),
  output_tokens: TokenCount.optional(),
  meta: Fields.meta.optional(),
});
export type AnswerRow = z.output<typeof AnswerRowSchema>;

export interface AnswerDefaults {
  run?: string;
  model?: string;
  effort?: string;
  tags?: string[];
  task?: TaskKind;
  /** Score the new assemble and describe-then-solve answers against their puzzles in the same transaction (default true). */
  score?: boolean;
}

export interface AnswerImportResult {
  runs: Array<{ name: string; model: string; created: boolean; imported: number; unchanged: number }>;
  imported: number;
  unchanged: number;
  /** Assemble and describe-then-solve answers scored into assembly_scores by this import. */
  scored: number;
  /** The database id of every row's answer (new or already stored), in file order. */
  answerIds: number[];
}

/** Output limits hit: the provider's stop reasons that mean "cut off". */
const TRUNCATING_STOPS = new Set(['max_tokens', 'length', 'max_output_tokens']);

const hasText = (row: AnswerRow): boolean => row.text !== undefined && row.text !== null && row.text.trim() !== '';

function statusOf(row: AnswerRow): AnswerStatus {
  if (row.status) return row.status;
  if (TRUNCATING_STOPS.has(row.stop_reason ?? '') || TRUNCATING_STOPS.has(row.finish_reason ?? '')) return 'truncated';
  return hasText(row) ? 'ok' : 'no_answer';
}

/**
 * `ok` says the model answered; a row that says so with no text contradicts itself. Stored, grading skipped
 * it (nothing to grade) while reports counted it an answer, not a missing one (the effort table's `missing`
 * left it out, exit 0). Which of the two the row meant cannot be told, so it is bad input.
 */
function checkStatus(loc: Located, row: AnswerRow): void {
  if (row.status !== 'ok' || hasText(row)) return;
  const text = row.text === undefined ? 'no text' : row.text === null ? 'text null' : 'blank text';
  throw locatedError(loc, ['status'], `'ok' but the row has ${text} (an answer without output is 'no_answer': give the text, or leave "status" out)`);
}

export interface Prepared {
  loc: Located;
  row: AnswerRow;
  run: string;
  model: string;
  task: TaskKind;
  externalId: string;
}

/** Object keys sorted at every level: jsonb hands meta back in its own key order. */
const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : v !== null && typeof v === 'object'
      ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`
      : JSON.stringify(v);

const said = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : String(v));

/**
 * A row that gives one thing twice (token counts in usage and at the top level, a stop reason under two
 * names or in meta too) must give it the same way: storing one would silently drop the other.
 */
function checkConsistent(loc: Located, row: AnswerRow): void {
  const u = row.usage ?? {};
  const pairs: Array<[PropertyKey[], unknown, string, unknown]> = [
    [['usage', 'prompt_tokens'], u.prompt_tokens, 'usage.input_tokens', u.input_tokens],
    [['usage', 'completion_tokens'], u.completion_tokens, 'usage.output_tokens', u.output_tokens],
    [['input_tokens'], row.input_tokens, 'usage', u.input_tokens ?? u.prompt_tokens],
    [['output_tokens'], row.output_tokens, 'usage', u.output_tokens ?? u.completion_tokens],
    [['finish_reason'], row.finish_reason, 'stop_reason', row.stop_reason],
    [['meta', 'stopReason'], row.meta?.stopReason, 'stop_reason', row.finish_reason ?? row.stop_reason],
  ];
  for (const [path, value, other, otherValue] of pairs) {
    const given = (v: unknown) => v !== undefined && v !== null && v !== '';
    if (given(value) && given(otherValue) && value !== otherValue) throw locatedError(loc, path, `${said(value)}, but ${other} says ${said(otherValue)}`);
  }
  if (row.usage && row.meta?.usage !== undefined && canonical(row.meta.usage) !== canonical(row.usage)) {
    throw locatedError(loc, ['meta', 'usage'], 'differs from usage (give the usage once)');
  }
}

function prepare(loc: Located, defaults: AnswerDefaults): Prepared {
  const row = parseLocated(AnswerRowSchema, loc);
  checkConsistent(loc, row);
  checkStatus(loc, row);
  const run = row.run ?? defaults.run;
  const model = row.model ?? defaults.model;
  const task = row.task ?? defaults.task;
  if (!task) throw locatedError(loc, ['task'], `required (one of ${TASK_KINDS.join('|')})`);
  if (!model) throw locatedError(loc, ['model'], 'required (in the row or with --model)');
  const needsPuzzle = task === 'assemble' || task === 'describe-then-solve';
  if (needsPuzzle && !row.puzzle) throw locatedError(loc, ['puzzle'], `required for task '${task}'`);
  if (task === 'describe' && !row.rubric && !row.puzzle) throw locatedError(loc, ['rubric'], "required for task 'describe' (or a puzzle with a rubric)");
  const externalId = row.id ?? (task === 'choice' ? undefined : (row.puzzle ?? row.rubric));
  if (!externalId) throw locatedError(loc, ['id'], `required for task '${task}'`);
  // Without a run name the model names the run: one run per model is the common case.
  return { loc, row, run: run ?? model, model, task, externalId };
}

async function idsBySlug(tx: Queryable, table: typeof rubrics | typeof puzzles, slugs: string[]): Promise<Map<string, { id: number; rubricId: number | null }>> {
  if (slugs.length === 0) return new Map();
  if (table === puzzles) {
    const rows = await tx.select({ id: puzzles.id, slug: puzzles.slug, rubricId: puzzles.rubricId }).from(puzzles).where(inArray(puzzles.slug, slugs));
    return new Map(rows.map((r) => [r.slug, { id: r.id, rubricId: r.rubricId }]));
  }
  const rows = await tx.select({ id: rubrics.id, slug: rubrics.slug }).from(rubrics).where(inArray(rubrics.slug, slugs));
  return new Map(rows.map((r) => [r.slug, { id: r.id, rubricId: r.id }]));
}

/** Defaults (CLI flags, query parameters) obey the same field limits as the rows they fill in. */
const DefaultsSchema = z.looseObject({
  run: noEdgeSpaces(Fields.run).optional(),
  model: noEdgeSpaces(Fields.model).optional(),
  effort: noEdgeSpaces(Fields.effort).optional(),
  tags: z.array(noEdgeSpaces(Fields.tag)).max(100).optional(),
});

export function parseAnswerRows(file: ImportFile, defaults: AnswerDefaults = {}): Prepared[] {
  return prepareAnswerRows(parseJsonl(file), defaults);
}

/** Rows already read (a JSONL file's lines, or another tool's records converted): checked, with defaults. */
export function prepareAnswerRows(locs: readonly Located[], defaults: AnswerDefaults = {}): Prepared[] {
  const d = DefaultsSchema.safeParse(defaults);
  if (!d.success) throw badInput(`${fieldPath(d.error.issues[0]!.path)}: ${d.error.issues[0]!.message}`);
  const prepared = locs.map((loc) => prepare(loc, defaults));
  const seen = new Map<string, number | null>();
  for (const p of prepared) {
    const key = `${p.run}\u0000${p.externalId}`;
    if (seen.has(key)) {
      const first = seen.get(key);
      throw locatedError(p.loc, ['id'], `duplicate answer id '${p.externalId}' in run '${p.run}' (first ${first === null || first === undefined ? 'earlier in the file' : `on line ${first}`}); give each row a distinct "id"`);
    }
    seen.set(key, p.loc.line);
  }
  return prepared;
}

/** Same condition tags, in any order. */
export const sameTags = (a: readonly string[], b: readonly string[]): boolean => JSON.stringify([...new Set(a)].sort()) === JSON.stringify([...new Set(b)].sort());

/**
 * A run is a model at an effort under condition tags. A row may restate them but not change them: an
 * effort or tags that differ from the stored run's are refused, never silently dropped.
 */
function checkRun(p: Prepared, run: { model: string; effort: string | null; tags: string[] }, defaults: AnswerDefaults): void {
  if (run.model !== p.model) throw locatedError(p.loc, ['model'], `run '${p.run}' is model '${run.model}', this row says '${p.model}'`);
  const effort = p.row.effort ?? defaults.effort;
  if (effort !== undefined && effort !== run.effort) {
    throw locatedError(p.loc, ['effort'], `run '${p.run}' has effort ${run.effort === null ? 'none' : `'${run.effort}'`}, this row says '${effort}' (use another run name)`);
  }
  const tags = p.row.tags ?? defaults.tags;
  if (tags !== undefined && !sameTags(tags, run.tags)) {
    throw locatedError(p.loc, ['tags'], `run '${p.run}' has tags [${run.tags.join(', ')}], this row says [${tags.join(', ')}] (use another run name)`);
  }
}

const shown = (v: unknown): string => (v === null || v === undefined ? 'none' : typeof v === 'string' ? `'${v.length > 40 ? `${v.slice(0, 40)}…` : v}'` : String(v));

/**
 * What a re-imported row changes of the stored answer, or null. Token counts and meta count too: a file
 * with corrected usage must not be reported "unchanged" while the old counts stay.
 */
function difference(existing: typeof answers.$inferSelect, values: typeof answers.$inferInsert): string | null {
  const fields: Array<[string, unknown, unknown]> = [
    ['task', existing.task, values.task],
    ['puzzle', existing.puzzleId, values.puzzleId],
    ['rubric', existing.rubricId, values.rubricId],
    ['status', existing.status, values.status],
    ['input_tokens', existing.inputTokens, values.inputTokens],
    ['output_tokens', existing.outputTokens, values.outputTokens],
  ];
  if (existing.text !== values.text) return 'text';
  for (const [name, a, b] of fields) if (a !== b) return name === 'puzzle' || name === 'rubric' ? name : `${name}: stored ${shown(a)}, this row ${shown(b)}`;
  if (canonical(existing.meta ?? {}) !== canonical(values.meta ?? {})) return 'meta';
  return null;
}

/** Rows per INSERT: well under PostgreSQL's 65535 bind parameters (12 columns a row). */
const CHUNK = 1000;

export async function storeAnswers(tx: Queryable, prepared: Prepared[], defaults: AnswerDefaults): Promise<AnswerImportResult> {
  const puzzleIds = await idsBySlug(tx, puzzles, [...new Set(prepared.flatMap((p) => (p.row.puzzle ? [p.row.puzzle] : [])))]);
  const rubricIds = await idsBySlug(tx, rubrics, [...new Set(prepared.flatMap((p) => (p.row.rubric ? [p.row.rubric] : [])))]);
  const result: AnswerImportResult = { runs: [], imported: 0, unchanged: 0, scored: 0, answerIds: [] };
  const runIds = new Map<string, { id: number; model: string; effort: string | null; tags: string[]; entry: AnswerImportResult['runs'][number] }>();

  // Runs first (few), so existing answers can be fetched in bulk rather than one query per row.
  for (const p of prepared) {
    let run = runIds.get(p.run);
    if (!run) {
      const effort = p.row.effort ?? defaults.effort ?? null;
      const tags = p.row.tags ?? defaults.tags ?? [];
      // Insert-or-read, not read-then-insert: two uploads creating the same new run must not collide.
      const [created] = await tx.insert(runs).values({ name: p.run, model: p.model, effort, tags }).onConflictDoNothing().returning();
      const row = created ?? (await tx.select().from(runs).where(eq(runs.name, p.run)))[0]!;
      run = { id: row.id, model: row.model, effort: row.effort, tags: row.tags, entry: { name: p.run, model: row.model, created: created !== undefined, imported: 0, unchanged: 0 } };
      runIds.set(p.run, run);
      result.runs.push(run.entry);
    }
    checkRun(p, run, defaults);
  }
  const stored = new Map<string, typeof answers.$inferSelect>();
  const keyOf = (runId: number, externalId: string) => `${runId}\u0000${externalId}`;
  const ids = [...runIds.values()].map((r) => r.id);
  const externalIds = [...new Set(prepared.map((p) => p.externalId))];
  for (let i = 0; i < externalIds.length; i += CHUNK) {
    const rows = await tx
      .select()
      .from(answers)
      .where(and(inArray(answers.runId, ids), inArray(answers.externalId, externalIds.slice(i, i + CHUNK))));
    for (const r of rows) stored.set(keyOf(r.runId, r.externalId), r);
  }

  const slots: Array<{ id: number | null; assemble: boolean }> = [];
  const fresh: Array<{ slot: number; values: typeof answers.$inferInsert }> = [];
  for (const p of prepared) {
    const run = runIds.get(p.run)!;
    const puzzle = p.row.puzzle === undefined ? null : puzzleIds.get(p.row.puzzle);
    if (puzzle === undefined) throw locatedError(p.loc, ['puzzle'], `unknown puzzle '${p.row.puzzle}' (import it first)`);
    const rubricRef = p.row.rubric === undefined ? null : rubricIds.get(p.row.rubric);
    if (rubricRef === undefined) throw locatedError(p.loc, ['rubric'], `unknown rubric '${p.row.rubric}' (import it first)`);
    const rubricId = rubricRef?.id ?? puzzle?.rubricId ?? null;
    if (p.task === 'describe' && rubricId === null) throw locatedError(p.loc, ['puzzle'], `puzzle '${p.row.puzzle}' has no rubric; give "rubric"`);
    const usage = p.row.usage;
    const values = {
      runId: run.id,
      externalId: p.externalId,
      task: p.task,
      puzzleId: puzzle?.id ?? null,
      rubricId,
      text: p.row.text ?? null,
      status: statusOf(p.row),
      inputTokens: usage?.input_tokens ?? usage?.prompt_tokens ?? p.row.input_tokens ?? null,
      outputTokens: usage?.output_tokens ?? usage?.completion_tokens ?? p.row.output_tokens ?? null,
      meta: {
        ...(p.row.meta ?? {}),
        ...(usage ? { usage } : {}),
        ...(p.row.stop_reason ? { stopReason: p.row.stop_reason } : {}),
        ...(p.row.finish_reason ? { stopReason: p.row.finish_reason } : {}),
      },
    };
    const existing = stored.get(keyOf(run.id, p.externalId));
    if (existing) {
      const changed = difference(existing, values);
      if (changed) throw locatedError(p.loc, ['id'], `answer '${p.externalId}' of run '${p.run}' already exists with different content (${changed})`);
      run.entry.unchanged++;
      result.unchanged++;
      slots.push({ id: existing.id, assemble: false });
      continue;
    }
    fresh.push({ slot: slots.length, values });
    // A describe-then-solve answer's grid is scored too (the report pairs it with its own description).
    slots.push({ id: null, assemble: p.task === 'assemble' || p.task === 'describe-then-solve' });
    run.entry.imported++;
    result.imported++;
  }

  for (let i = 0; i < fresh.length; i += CHUNK) {
    const part = fresh.slice(i, i + CHUNK);
    const inserted = await tx.insert(answers).values(part.map((f) => f.values)).returning({ id: answers.id, runId: answers.runId, externalId: answers.externalId });
    const byKey = new Map(inserted.map((r) => [keyOf(r.runId, r.externalId), r.id]));
    for (const f of part) slots[f.slot]!.id = byKey.get(keyOf(f.values.runId, f.values.externalId))!;
  }
  result.answerIds = slots.map((s) => s.id!);
  if (defaults.score !== false) {
    for (const s of slots) {
      if (!s.assemble) continue;
      // An error answer is not scored (scoreOne: null), so not counted.
      if (await scoreOne(tx, s.id!)) result.scored++;
    }
  }
  return result;
}

/** All or nothing: a malformed line, a wrong type or an unknown id and no row is written. */
export async function importAnswersJsonl(database: Database, file: ImportFile, defaults: AnswerDefaults = {}): Promise<AnswerImportResult> {
  const prepared = parseAnswerRows(file, defaults);
  if (prepared.length === 0) throw badInput(`${file.path}: no answers`);
  return database.db.transaction((tx) => storeAnswers(tx, prepared, defaults));
}
