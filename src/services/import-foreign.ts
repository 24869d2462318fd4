import type { Database } from '../db/client.ts';
import { badInput } from '../domain/errors.ts';
import { storeImportedGrades } from './grading/imported-grades.ts';
import { prepareAnswerRows, storeAnswers, type AnswerDefaults, type AnswerImportResult } from './import-answers.ts';
import { CONVERTERS, type ForeignFormat, type Skipped } from './import-formats/index.ts';
import type { ImportFile } from './import-parse.ts';

/**
 * `assay import answers FILE --from inspect|promptfoo|lm-eval|vlmevalkit`: another tool's output file as
 * a run of answers, and the tool's own scores as the grades of an `imported` judge per scorer. All or
 * nothing, like the JSONL import: a bad record (exit 2, naming it) and nothing is written. Records that
 * are no answer (a loglikelihood request, a non-text output, a second filter) are skipped and reported.
 */

export interface ForeignImportResult extends Omit<AnswerImportResult, 'answerIds'> {
  from: ForeignFormat;
  skipped: Skipped[];
  grades: { judges: string[]; stored: number; unchanged: number };
}

export interface ForeignDefaults extends AnswerDefaults {
  rubric?: string | undefined;
  puzzle?: string | undefined;
}

export async function importForeignAnswers(database: Database, file: ImportFile, from: ForeignFormat, defaults: ForeignDefaults = {}): Promise<ForeignImportResult & { answerIds: number[] }> {
  const { rubric, puzzle, ...answerDefaults } = defaults;
  const converted = CONVERTERS[from](file, { model: defaults.model, rubric, puzzle });
  if (converted.rows.length === 0) {
    const why = converted.skipped[0] ? ` (${converted.skipped.length} record(s) skipped; the first: ${converted.skipped[0].where}: ${converted.skipped[0].reason})` : '';
    throw badInput(`${file.path}: no answers to import${why}`);
  }
  const prepared = prepareAnswerRows(converted.rows.map((r) => r.loc), answerDefaults);
  return database.db.transaction(async (tx) => {
    const stored = await storeAnswers(tx, prepared, answerDefaults);
    const scores = converted.rows.flatMap((r, i) => r.scores.map((s) => ({ ...s, answerId: stored.answerIds[i]!, tool: converted.tool })));
    const grades = await storeImportedGrades(tx, scores);
    return { from, ...stored, skipped: converted.skipped, grades };
  });
}
