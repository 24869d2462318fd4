import { badInput } from './errors.ts';

/**
 * The zod-free half of limits.ts: the caps and the checks that need no schema library, so readers of
 * files (json-check, the CLI's file input) load without zod. limits.ts re-exports all of it; import
 * from there unless the module must stay light.
 */

/** Largest value of a PostgreSQL `integer` (int4) column: every id, token count and grid size is one. */
export const INT4_MAX = 2_147_483_647;

/**
 * A number as text in a query string or flag: a plain decimal (sign, digits, point, exponent). Number()
 * would also read '0x10', '0b1', 'Infinity' and '' (as 16, 1, Infinity and 0).
 */
export const PLAIN_DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** A whole number as text: a sign and digits only (no point, exponent, hex or spaces). */
export const PLAIN_INTEGER = /^[-+]?\d+$/;

/** Why readDecimal refused a text: not a plain finite decimal; not written as a whole number; a whole number past 2^53 − 1. */
export type DecimalProblem = 'not-decimal' | 'not-whole' | 'unsafe';

/**
 * The one reading of a number written as text, for the API's query strings, the CLI's flags and the
 * importers: PLAIN_DECIMAL and finite; a whole number is PLAIN_INTEGER (`2`, not `2.0` or `1e1`, as row
 * ids and the pages' whole numbers) and exact (past 2^53 a count reads as its neighbour). The text is read
 * as given: trimming, and what a blank means (a cleared form field is not given; an empty flag is refused),
 * are the caller's. Range checks are the caller's too.
 */
export function readDecimal(text: string, o: { integer?: boolean } = {}): number | DecimalProblem {
  const n = PLAIN_DECIMAL.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(n)) return 'not-decimal';
  if (!o.integer) return n;
  if (!PLAIN_INTEGER.test(text)) return 'not-whole';
  return Number.isSafeInteger(n) ? n : 'unsafe';
}

/** Nesting limit of every JSON (and YAML) document: far above any real payload, far below a stack overflow. */
export const MAX_JSON_DEPTH = 32;

/** Length caps, in characters (code points). */
export const CAPS = {
  /** Identifiers and short names: run, model, effort, tag, slug, answer/item/piece id, annotator, label, key name. */
  name: 200,
  /** Rubric titles. */
  title: 500,
  /** One rubric item's text. */
  itemText: 5_000,
  /** File paths and URLs (rubric image, puzzle picture, rubric source). */
  path: 1_000,
  /** Free-text notes (label files). */
  note: 10_000,
  /** Long text: an answer, a rubric reference description, any string inside a JSON document. */
  longText: 200_000,
  /** A JSON document stored whole (an answer's meta), measured as compact JSON. */
  jsonDocument: 1_000_000,
} as const;

/** Rows and columns of a puzzle grid (the column is int4; scoring a larger grid is never meant). */
export const MAX_GRID_SIDE = 1_000;

// A lone surrogate would be written as U+FFFD by the database drivers: text that is not Unicode.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored as text, or null. PostgreSQL text holds neither NUL nor lone surrogates. */
export function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (U+0000), which text cannot hold';
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate (not valid Unicode)';
  return null;
}

/**
 * How a row id is written as text (a URL path, a flag, a file field): plain decimal digits only (no 1e3,
 * 0x10, " 7"). The one definition; its range is rowIdProblem's to check.
 */
export const ROW_ID_TEXT = /^[0-9]+$/;
const ROW_ID_RANGE = `a whole number from 1 to ${INT4_MAX}`;

/** A row id written in a URL path or a command-line flag: ROW_ID_TEXT, at most 10 digits, in 1..INT4_MAX. */
export function rowIdProblem(raw: string): string | null {
  if (!ROW_ID_TEXT.test(raw) || raw.length > 10) return `must be ${ROW_ID_RANGE}, got '${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}'`;
  const n = Number(raw);
  return n >= 1 && n <= INT4_MAX ? null : `must be ${ROW_ID_RANGE}, got ${raw}`;
}

/** Parses a row id from text or throws bad_input naming the field ("answer id: must be …"). */
export function parseRowId(raw: string, field: string): number {
  const p = rowIdProblem(raw);
  if (p) throw badInput(`${field}: ${p}`);
  return Number(raw);
}
