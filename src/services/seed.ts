import { count, sql } from 'drizzle-orm';
import { join, sep } from 'node:path';
import type { Database } from '../db/client.ts';
import { puzzles, rubrics, runs } from '../db/schema.ts';
import { parseAnswerRows, storeAnswers } from './import-answers.ts';
import { parseJsonl, parseLocated } from './import-parse.ts';
import { iiwAnswerRow, iiwRubric, IiwRowSchema } from './iiw.ts';
import { readImportFiles, PUZZLE_FILES } from './imports.ts';
import { parsePuzzleFiles, storePuzzles } from './puzzles.ts';
import { parseRubricFiles, storeRubric } from './rubrics.ts';
import { gradeExamples, gradeExamplesWithPanel } from './grading/examples.ts';
import { labelExamples } from './seed-labels.ts';
import { examplesDigest, markSeedComplete, seedCompleteFor } from './seed-marker.ts';
import { projectPath } from '../paths.ts';

/**
 * The bundled examples (rubrics/examples/), loaded into an empty database by `npm start` so every page
 * has something to show: the farmyard rubric and its describe answer, the IIW-400 subset as rubrics
 * plus the IIW-P5B model's descriptions as a run, the grid puzzles with a run of assemblies, and a
 * synthetic describe-then-solve campaign on the farmyard puzzle (four fictional models, effort levels,
 * a "tagged" condition) — all scored; then every example description graded by the lexical judge,
 * two annotators' item labels of the farmyard descriptions, and those labelled descriptions graded by
 * the baseline panel of three lexical judges (judges/panel-lexical.yaml) for the calibration page.
 *
 * Two phases. The import (rubrics, puzzles, answers, assembly scores) goes through the same parsers as
 * `assay import`, in one transaction under an advisory lock, and only into an empty database: all or
 * nothing. Grades and labels follow outside it (grading/examples.ts, seed-labels.ts) and fill only what is missing, on every
 * call: a seed that dies while grading is completed by the next start. A complete seed is remembered with
 * the examples' digest (seed-marker.ts): a later call on the same examples returns at once.
 */

export const EXAMPLES_DIR = projectPath('rubrics', 'examples') + sep;

export interface SeedResult {
  seeded: boolean;
  rubrics: number;
  puzzles: number;
  runs: number;
  answers: number;
  assemblyScores: number;
  /** Lexical grades written by this call (also when it completes an interrupted seed). */
  grades: number;
  labels: number;
  /** Baseline-panel grades written by this call (the labelled example descriptions; its members' grades besides). */
  panelGrades: number;
}

/** Arbitrary constant naming the seed's advisory lock. */
const SEED_LOCK = 0x61737361;

const EMPTY: Omit<SeedResult, 'seeded'> = { rubrics: 0, puzzles: 0, runs: 0, answers: 0, assemblyScores: 0, grades: 0, labels: 0, panelGrades: 0 };

/**
 * Imports the examples when the database holds no rubrics, puzzles or runs; then grades the example
 * descriptions still without a lexical grade, imports the example labels if none are there, and grades
 * the labelled ones still without a baseline-panel grade — until one call has completed all of it for
 * these examples (seed-marker.ts).
 */
export async function seedExamples(database: Database, opts: { dir?: string } = {}): Promise<SeedResult> {
  const dir = opts.dir ?? EXAMPLES_DIR;
  const digest = examplesDigest(dir);
  if (await seedCompleteFor(database, digest)) return { seeded: false, ...EMPTY };
  // Parse everything before opening the transaction: a broken example fails fast and writes nothing.
  // The project's own rubrics (rubrics/*.yaml, e.g. farmyard) are examples too: one copy, not two.
  const rubricDocs = parseRubricFiles(readImportFiles(join(dir, '..'), /\.ya?ml$/i));
  const iiwFile = readImportFiles(join(dir, 'imageinwords', 'IIW-400.p5b-subset.jsonl'), /./)[0]!;
  const iiwRows = parseJsonl(iiwFile).map((loc) => parseLocated(IiwRowSchema, loc));
  const puzzleList = parsePuzzleFiles(readImportFiles(join(dir, 'puzzles'), PUZZLE_FILES));
  const iiwAnswers = iiwRows.map(iiwAnswerRow).filter((r) => r !== null);
  const answerFiles = [
    ...readImportFiles(join(dir, 'runs'), /\.jsonl$/i),
    { path: `${iiwFile.path} (IIW-P5B)`, content: iiwAnswers.map((r) => JSON.stringify(r)).join('\n') },
  ];
  const prepared = answerFiles.map((f) => parseAnswerRows(f));
  const labelFile = readImportFiles(join(dir, 'labels'), /\.jsonl$/i)[0]!;
  const exampleRuns = [...new Set(prepared.flatMap((rows) => rows.map((r) => r.run)))];

  const imported = await importExamples(database, { rubricDocs, iiwRows, puzzleList, prepared });
  // Labels before grades: one quick transaction, so the calibration rows exist as early as possible.
  const labelled = await labelExamples(database, labelFile);
  const graded = await gradeExamples(database, exampleRuns);
  // After the lexical grades: the panel's lexical member then rewrites its grade of a labelled answer, never creates it.
  const panelGraded = await gradeExamplesWithPanel(database, exampleRuns);
  await markSeedComplete(database, digest);
  return { ...imported, grades: graded, labels: labelled, panelGrades: panelGraded };
}

interface Parsed {
  rubricDocs: ReturnType<typeof parseRubricFiles>;
  iiwRows: Array<ReturnType<typeof parseLocated<typeof IiwRowSchema>>>;
  puzzleList: ReturnType<typeof parsePuzzleFiles>;
  prepared: Array<ReturnType<typeof parseAnswerRows>>;
}

async function importExamples(database: Database, { rubricDocs, iiwRows, puzzleList, prepared }: Parsed): Promise<SeedResult> {
  return database.db.transaction(async (tx) => {
    // Two processes starting on one empty PostgreSQL database would both seed; the second now waits
    // for the first and then finds the database not empty.
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK})`);
    for (const table of [rubrics, puzzles, runs]) {
      const [row] = await tx.select({ n: count() }).from(table);
      if ((row?.n ?? 0) > 0) return { seeded: false, ...EMPTY };
    }
    const result: SeedResult = { seeded: true, ...EMPTY };
    for (const r of [...rubricDocs.map((d) => d.rubric), ...iiwRows.map(iiwRubric)]) {
      await storeRubric(tx, r);
      result.rubrics++;
    }
    result.puzzles = (await storePuzzles(tx, puzzleList)).created;
    const runNames = new Set<string>();
    for (const rows of prepared) {
      const stored = await storeAnswers(tx, rows, { score: true });
      stored.runs.forEach((r) => runNames.add(r.name));
      result.answers += stored.imported;
      result.assemblyScores += stored.scored;
    }
    result.runs = runNames.size;
    return result;
  });
}
