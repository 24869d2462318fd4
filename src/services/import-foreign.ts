import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.ts';
import { answers, runs } from '../db/schema.ts';
import { badInput } from '../domain/errors.ts';
import { storeImportedGrades } from './grading/imported-grades.ts';
import { prepareAnswerRows, storeAnswers, type AnswerDefaults, type AnswerImportResult, type Prepared } from './import-answers.ts';
import { CONVERTERS, type ForeignFormat, type ForeignRow, type Skipped } from './import-formats/index.ts';
import { inspectSampleKey } from './import-formats/inspect.ts';
import { locatedError, type ImportFile } from './import-parse.ts';

/**
 * `assay import answers FILE --from inspect|promptfoo|lm-eval|vlmevalkit`: another tool's output file as
 * a run of answers, and the tool's own scores as the grades of an `imported` judge per scorer. All or
 * nothing, like the JSONL import: a bad record (exit 2, naming it) and nothing is written. Records that
 * are no answer (a loglikelihood request, a non-text output, the lines of an lm-eval filter not chosen) are skipped and reported.
 */

export interface ForeignImportResult extends Omit<AnswerImportResult, 'answerIds'> {
  from: ForeignFormat;
  skipped: Skipped[];
  grades: { judges: string[]; stored: number; unchanged: number };
}

export interface ForeignDefaults extends AnswerDefaults {
  rubric?: string | undefined;
  puzzle?: string | undefined;
  /** lm-eval: which filter's lines are the answers (required when the file holds several). */
  filter?: string | undefined;
}

export async function importForeignAnswers(database: Database, file: ImportFile, from: ForeignFormat, defaults: ForeignDefaults = {}): Promise<ForeignImportResult & { answerIds: number[] }> {
  const { rubric, puzzle, filter, ...answerDefaults } = defaults;
  if (filter !== undefined && from !== 'lm-eval') throw badInput(`filter goes with lm-eval (the filter of a samples file whose lines are the answers), not ${from}`);
  const converted = CONVERTERS[from](file, { model: defaults.model, rubric, puzzle, filter });
  if (converted.rows.length === 0) {
    const why = converted.skipped[0] ? ` (${converted.skipped.length} record(s) skipped; the first: ${converted.skipped[0].where}: ${converted.skipped[0].reason})` : '';
    throw badInput(`${file.path}: no answers to import${why}`);
  }
  const prepared = prepareAnswerRows(converted.rows.map((r) => r.loc), answerDefaults);
  return database.db.transaction(async (tx) => {
    if (from === 'inspect') await refuseSecondInspectId(tx, prepared, converted.rows);
    const stored = await storeAnswers(tx, prepared, answerDefaults);
    const scores = converted.rows.flatMap((r, i) => r.scores.map((s) => ({ ...s, answerId: stored.answerIds[i]!, tool: converted.tool })));
    const grades = await storeImportedGrades(tx, scores);
    return { from, ...stored, skipped: converted.skipped, grades };
  });
}

const source = (row: ForeignRow): Record<string, unknown> => ((row.row.meta as { source?: Record<string, unknown> } | undefined)?.source ?? {});

/**
 * A log with one epoch names a sample's answer `q1`, one with several `q1#1`: importing both into one run
 * stored the sample twice under two ids, exit 0, and it weighed double in the run's rates. A sample (task,
 * id, epoch) the run already holds under another id is refused, naming both.
 */
async function refuseSecondInspectId(tx: Queryable, prepared: readonly Prepared[], rows: readonly ForeignRow[]): Promise<void> {
  const names = [...new Set(prepared.map((p) => p.run))];
  const field = (name: string) => sql<string | null>`${answers.meta}->'source'->>${name}`;
  const stored = await tx
    .select({ run: runs.name, id: answers.externalId, task: field('task'), sample: field('sample'), epoch: field('epoch') })
    .from(answers)
    .innerJoin(runs, eq(runs.id, answers.runId))
    .where(and(inArray(runs.name, names), sql`${answers.meta}->'source'->>'tool' = 'inspect'`));
  if (stored.length === 0) return;
  const held = new Map(stored.map((a) => [`${a.run}\u0000${inspectSampleKey(a)}`, a.id]));
  prepared.forEach((p, i) => {
    const s = source(rows[i]!);
    const other = held.get(`${p.run}\u0000${inspectSampleKey(s)}`);
    if (other === undefined || other === p.externalId) return;
    throw locatedError(
      p.loc,
      ['id'],
      `sample '${String(s.sample)}' epoch ${String(s.epoch ?? 1)} is already answer '${other}' of run '${p.run}', and this log names it '${p.externalId}' (a log with one epoch names answers by sample id, one with several by id#epoch); import it into another run (--run) rather than store the sample twice`,
    );
  });
}
