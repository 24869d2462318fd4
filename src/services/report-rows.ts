import type { AssemblyRow, DescriptionRow } from './report-data.ts';

/**
 * The report rows, put together from the facts report-facts.ts reads. Pure (no database): the report
 * thread runs it (report-tasks.ts).
 *
 * A description row is an answer's facts (answers, runs, puzzles: unchanged by a regrade) joined with
 * its judge's newest grade (grades, rubric versions); an assembly row is an answer's facts joined with
 * its stored score. Each side is read and cached on its own, so a regrade re-reads only the grades.
 * Facts come as JSON text: an array of chunks, each chunk one array per column (a row is the same index
 * in every column) — on PGlite, many small JSON objects cost several times more to build and parse.
 */

/** A set of facts, as text and, for the report thread, a name that is the same for the same text. */
export interface FactsText {
  /** Unique for this text: the report thread keeps what it decoded under it (see rowsOf). */
  id: string;
  text: string;
}

/** What a task gets for its rows: the rows as a JSON array of objects, or an answer and a figure side. */
export type RowsInput = string | { answers: FactsText; figures: FactsText };

type Columns = Record<string, unknown[]>;

/** Column names of each side, in the order of the row objects (report-data.ts DescriptionRow, AssemblyRow). */
export const DESCRIPTION_ANSWER_COLUMNS = ['answerId', 'externalId', 'run', 'model', 'effort', 'tags', 'answerStatus', 'outputTokens', 'puzzleId', 'rubricId', 'sizeBucket'] as const;
export const GRADE_COLUMNS = ['gradeStatus', 'f1', 'truthOrientation', 'statedOrientation', 'orientationCorrect', 'pieceCountError'] as const;
export const ASSEMBLY_ANSWER_COLUMNS = ['answerId', 'externalId', 'run', 'model', 'effort', 'tags', 'answerStatus', 'outputTokens', 'puzzleId', 'puzzle', 'puzzleRubricId', 'rows', 'cols', 'sizeBucket'] as const;
export const SCORE_COLUMNS = ['scoreStatus', 'direct', 'neighbour', 'adjacency', 'proximity', 'exactMatch'] as const;

/** Every chunk's columns of `text` (JSON: an array of {column: values[]}). */
function chunksOf(text: string): Columns[] {
  return JSON.parse(text) as Columns[];
}

/** Figures by answer id: the other columns of each answer's entry (figure facts carry an answerId column). */
function figuresByAnswer(text: string, names: readonly string[]): Map<number, unknown[]> {
  const out = new Map<number, unknown[]>();
  for (const c of chunksOf(text)) {
    const ids = c.answerId as number[];
    const cols = names.map((n) => c[n]!);
    for (let i = 0; i < ids.length; i++) out.set(ids[i]!, cols.map((col) => col[i]));
  }
  return out;
}

/**
 * Rows: each answer of `answers` (in its order) with its figures, or every figure null when it has none
 * (an ungraded description, an unscored assembly) — what the left join of one query gave.
 */
function joinRows<T>(answers: string, answerNames: readonly string[], figures: string, figureNames: readonly string[]): T[] {
  const byAnswer = figuresByAnswer(figures, figureNames);
  const none = figureNames.map(() => null);
  const rows: T[] = [];
  for (const c of chunksOf(answers)) {
    const cols = answerNames.map((n) => c[n]!);
    const n = cols[0]!.length;
    for (let i = 0; i < n; i++) {
      const row: Record<string, unknown> = {};
      for (let k = 0; k < answerNames.length; k++) row[answerNames[k]!] = cols[k]![i];
      const f = byAnswer.get(row.answerId as number) ?? none;
      for (let k = 0; k < figureNames.length; k++) row[figureNames[k]!] = f[k];
      rows.push(row as T);
    }
  }
  return rows;
}

export const descriptionRowsOf = (answers: string, grades: string): DescriptionRow[] => joinRows(answers, DESCRIPTION_ANSWER_COLUMNS, grades, GRADE_COLUMNS);
export const assemblyRowsOf = (answers: string, scores: string): AssemblyRow[] => joinRows(answers, ASSEMBLY_ANSWER_COLUMNS, scores, SCORE_COLUMNS);

/*
 * The report thread decodes a set of facts once and keeps the rows for the next tasks of the same data
 * version (a page's three tables, the describe-then-solve pairing after the leaderboard): the id names
 * the texts' cache entries, which never change under one id. Tasks read rows and never change them.
 */
const KEPT = 4;
const kept = new Map<string, unknown[]>();

function remembered<T extends object>(id: string, decode: () => T[]): T[] {
  const hit = kept.get(id);
  if (hit) {
    kept.delete(id);
    kept.set(id, hit);
    return hit as T[];
  }
  const rows = decode();
  // Frozen: a task that tried to change a shared row would throw rather than change the next task's data.
  for (const r of rows) Object.freeze(r);
  Object.freeze(rows);
  kept.set(id, rows);
  while (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  return rows;
}

export function descriptionRowsFrom(input: RowsInput): DescriptionRow[] {
  if (typeof input === 'string') return JSON.parse(input) as DescriptionRow[];
  return remembered(`d:${input.answers.id}:${input.figures.id}`, () => descriptionRowsOf(input.answers.text, input.figures.text));
}

export function assemblyRowsFrom(input: RowsInput): AssemblyRow[] {
  if (typeof input === 'string') return JSON.parse(input) as AssemblyRow[];
  return remembered(`a:${input.answers.id}:${input.figures.id}`, () => assemblyRowsOf(input.answers.text, input.figures.text));
}
