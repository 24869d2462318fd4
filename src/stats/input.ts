import { badInput } from '../domain/errors.ts';
import type { Label } from './types.ts';

/**
 * Parsing rating data from the text of a JSON or CSV file (pure: text in, arrays out). Errors name the
 * source so the CLI can print one clear line. CSV has no header row; an empty cell or NA is missing.
 */
export type Cell = Label | null;

const MISSING = new Set(['', 'NA', 'N/A', 'NaN', 'null']);

/** Splits one CSV line, honouring double-quoted cells with "" escapes. */
function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cur = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') {
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') {
      cells.push(wasQuoted ? cur : cur.trim());
      cur = '';
      wasQuoted = false;
    } else cur += ch;
  }
  cells.push(wasQuoted ? cur : cur.trim());
  return cells;
}

/** A CSV cell: missing, a number when it reads as one, otherwise the text. */
function csvCell(text: string): Cell {
  if (MISSING.has(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? n : text;
}

export function parseCsv(text: string, source: string): Cell[][] {
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  if (lines.length === 0) throw badInput(`${source}: empty file`);
  return lines.map((line) => splitCsvLine(line).map(csvCell));
}

export function parseJson(text: string, source: string): unknown {
  if (text.trim() === '') throw badInput(`${source}: empty file`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badInput(`${source}: not valid JSON (${(e as Error).message})`);
  }
}

function isCell(v: unknown): v is Cell {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** A flat list of values: a JSON array, or a one-column CSV. */
export function parseList(text: string, source: string, isCsv: boolean): Cell[] {
  let list: unknown;
  if (isCsv) {
    const rows = parseCsv(text, source);
    const wide = rows.findIndex((r) => r.length !== 1);
    if (wide >= 0) throw badInput(`${source}: line ${wide + 1} has ${rows[wide]!.length} cells, expected one value per line`);
    list = rows.map((r) => r[0]!);
  } else {
    list = parseJson(text, source);
  }
  return checkList(list, source);
}

/** A list given as data (a parsed file, a request body's field): a non-empty array of cells. */
export function checkList(list: unknown, source: string): Cell[] {
  if (!Array.isArray(list)) throw badInput(`${source}: expected a JSON array of values`);
  if (list.length === 0) throw badInput(`${source}: empty (no values)`);
  list.forEach((v, i) => {
    if (!isCell(v)) throw badInput(`${source}: value ${i + 1} is ${JSON.stringify(v)}, expected a string, a number or null`);
  });
  return list as Cell[];
}

/** A rectangular matrix: a JSON array of equal-length arrays, or a CSV. */
export function parseMatrix(text: string, source: string, isCsv: boolean): Cell[][] {
  return checkMatrix(isCsv ? parseCsv(text, source) : parseJson(text, source), source);
}

/** A matrix given as data: a non-empty rectangular array of arrays of cells. */
export function checkMatrix(rows: unknown, source: string): Cell[][] {
  if (!Array.isArray(rows) || !rows.every(Array.isArray)) throw badInput(`${source}: expected a matrix (an array of arrays)`);
  if (rows.length === 0 || rows[0]!.length === 0) throw badInput(`${source}: empty matrix`);
  const width = rows[0]!.length;
  rows.forEach((row: unknown[], i) => {
    if (row.length !== width) throw badInput(`${source}: row ${i + 1} has ${row.length} values, row 1 has ${width} (ragged matrix)`);
    row.forEach((v, j) => {
      if (!isCell(v)) throw badInput(`${source}: row ${i + 1}, column ${j + 1} is ${JSON.stringify(v)}, expected a string, a number or null`);
    });
  });
  return rows as Cell[][];
}

/** Labels where none may be missing. */
export function requireLabels(list: readonly Cell[], source: string): Label[] {
  const i = list.indexOf(null);
  if (i >= 0) throw badInput(`${source}: value ${i + 1} is missing (every item needs a label)`);
  return list as Label[];
}

/** Numbers where none may be missing or text. */
export function requireNumbers(list: readonly Cell[], source: string, where: (i: number) => string = (i) => `value ${i + 1}`): number[] {
  list.forEach((v, i) => {
    if (typeof v !== 'number') throw badInput(`${source}: ${where(i)} is ${v === null ? 'missing' : JSON.stringify(v)}, expected a number`);
  });
  return list as number[];
}

export function requireNumberMatrix(rows: readonly (readonly Cell[])[], source: string): number[][] {
  return rows.map((row, i) => requireNumbers(row, source, (j) => `row ${i + 1}, column ${j + 1}`));
}
