import { badInput } from '../domain/errors.ts';
import { assertUniqueKeys, exceedsDepth, parseCheckedJson } from '../domain/json-check.ts';
import { MAX_JSON_DEPTH, readDecimal } from '../domain/limit-values.ts';
import { readInputBytes, readInputText } from '../input/text-file.ts';

/**
 * File reading for CLI commands: every failure becomes one clear bad-input line naming the file.
 * Missing, directory, unreadable, too large, not UTF-8, NUL bytes (binary) and empty files are refused
 * by src/input, before anything is parsed.
 */

export function readText(path: string, what = 'file'): string {
  const text = readInputText(path, { what });
  // The parsers of JSON/JSONL files (choice keys, tangram rows, labels, ratings) recurse over each value:
  // a 10,000-deep line would overflow their stack, so nesting is refused here, before any of them runs.
  if (/\.(jsonl?|ndjson)$/i.test(path) && exceedsDepth(text, MAX_JSON_DEPTH, /\.(jsonl|ndjson)$/i.test(path))) {
    throw badInput(`${what} ${path}: nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return text;
}

export function readJson(path: string, what = 'file'): unknown {
  const text = readText(path, what);
  const value = parseCheckedJson(text, `${what} ${path}`);
  // JSON.parse keeps the last of a key given twice; YAML documents already refuse it (uniqueKeys).
  assertUniqueKeys(text, `${what} ${path}`);
  return value;
}

/** Pictures for a judge: a real image of a known type, at most this big (providers refuse larger ones). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
const IMAGE_MAGIC: Array<[RegExp, (b: Buffer) => boolean]> = [
  [/\.png$/i, (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  [/\.jpe?g$/i, (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  [/\.gif$/i, (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  [/\.webp$/i, (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
];

/** Checks an image file before a judge is paid to look at it: exists, bounded, and what its name says. */
export function checkImageFile(path: string): void {
  const kind = IMAGE_MAGIC.find(([re]) => re.test(path));
  if (!kind) throw badInput(`image ${path}: unsupported type (use .png, .jpg, .jpeg, .gif, .webp)`);
  const bytes = readInputBytes(path, { what: 'image', maxBytes: MAX_IMAGE_BYTES });
  if (bytes.length === 0) throw badInput(`image ${path}: empty file`);
  if (!kind[1](bytes)) throw badInput(`image ${path}: not a ${path.split('.').pop()!.toLowerCase()} image (its first bytes say otherwise)`);
}

/** A text flag checked with its field schema from src/domain/fields.ts (caps, no NUL), or undefined when absent. */
export function fieldFlag(values: Record<string, unknown>, name: string, schema: { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ message: string }> } } }): string | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const r = schema.safeParse(v);
  if (!r.success) throw badInput(`--${name}: ${r.error!.issues[0]!.message}`);
  return v as string;
}

/** A required string flag. */
export function requireFlag(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw badInput(`missing required option --${name}`);
  return v;
}

/** An optional number flag with validation: the text read by domain/limit-values.ts readDecimal, as the API reads a query number. */
export function numberFlag(
  values: Record<string, unknown>,
  name: string,
  opts: { integer?: boolean; min?: number; max?: number } = {},
): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  // Not trimmed, and an empty value is refused: `--top "$TOP"` with TOP unset must not mean the default.
  const n = typeof v === 'string' ? readDecimal(v, { integer: opts.integer }) : 'not-decimal';
  if (n === 'not-decimal') throw badInput(`--${name} must be a number, got '${String(v).slice(0, 60)}'`);
  if (n === 'not-whole') throw badInput(`--${name} must be a whole number, got '${String(v)}'`);
  // Past 2^53 a count reads as a neighbouring one (…993 as …992): refuse it rather than compute on another number.
  if (n === 'unsafe') throw badInput(`--${name} must be a whole number of at most ${Number.MAX_SAFE_INTEGER}, got '${String(v)}'`);
  if (opts.min !== undefined && n < opts.min) throw badInput(`--${name} must be ≥ ${opts.min}, got ${v}`);
  if (opts.max !== undefined && n > opts.max) throw badInput(`--${name} must be ≤ ${opts.max}, got ${v}`);
  return n;
}

/** An optional flag restricted to a set of values. */
export function choiceFlag<T extends string>(
  values: Record<string, unknown>,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  const v = values[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !(choices as readonly string[]).includes(v)) {
    throw badInput(`--${name} must be one of ${choices.join('|')}, got '${String(v)}'`);
  }
  return v as T;
}
