import { LineCounter, parseDocument, isNode, isScalar } from 'yaml';
import type { z } from 'zod';
import { badInput, type AssayError } from '../domain/errors.ts';
import { explainIssue } from '../domain/issues.ts';
import { duplicateKey, exceedsDepth, jsonValueProblem, parseCheckedJson } from '../domain/json-check.ts';
import { MAX_JSON_DEPTH } from '../domain/limits.ts';
import { checkYamlSize, yamlDocumentToJs } from '../input/yaml.ts';

/**
 * Reading import files into values that remember where they came from, so every bad-input message
 * reads "file:line: field: problem" and a user can go straight to the spot.
 */

export interface ImportFile {
  path: string;
  content: string;
}

export interface Located<T = unknown> {
  value: T;
  file: string;
  /** 1-based line of the value (JSONL: its line; YAML/JSON: the start of the document). */
  line: number | null;
  /** Line of a field path inside the value, when the format can tell (YAML/JSON documents). */
  lineOf(path: readonly PropertyKey[]): number | null;
  /**
   * YAML documents: the source text of a number scalar at a path, when it is not String(the number) (007,
   * 1e3, 0x1F, +5, 5.0), for fields where the text is an id; undefined otherwise (and for JSONL).
   */
  numberText?(path: readonly PropertyKey[]): string | undefined;
}

/**
 * Names, ids and raters are compared exactly: " alice" (a CSV written with ", ") would be a second rater
 * beside "alice", " a1" a second answer beside "a1". Refused rather than trimmed, so nothing is renamed.
 */
export const noEdgeSpaces = <S extends z.ZodType<string>>(schema: S) =>
  schema.refine((s) => s.trim() === s, { error: (i) => `has spaces at the start or end (${JSON.stringify(i.input).replace(/^"|"$/g, "'")})` });

/** "file:line" or "file". */
export function where(file: string, line: number | null): string {
  return line === null ? file : `${file}:${line}`;
}

/** `items[3].weight` from a zod/JSON path. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

export function locatedError(loc: Pick<Located, 'file' | 'line' | 'lineOf'>, path: readonly PropertyKey[], problem: string): AssayError {
  const line = (path.length ? loc.lineOf(path) : null) ?? loc.line;
  const field = fieldPath(path);
  return badInput(`${where(loc.file, line)}: ${field ? `${field}: ` : ''}${problem}`);
}

/** Parses with a zod schema; the first issue becomes a located bad-input error. */
export function parseLocated<S extends z.ZodType>(schema: S, loc: Located): z.output<S> {
  const r = schema.safeParse(loc.value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const more = r.error.issues.length > 1 ? ` (and ${r.error.issues.length - 1} more)` : '';
  // An unknown field is reported at the field itself, so the line is the one to fix.
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) {
    const known = issue.keys.length > 1 ? ` (also: ${issue.keys.slice(1).join(', ')})` : '';
    throw locatedError(loc, [...issue.path, issue.keys[0]], `unknown field${known}`);
  }
  const explained = explainIssue(issue);
  throw locatedError(loc, explained.path, explained.message + more);
}

/** JSON Lines: one value per non-blank line; a malformed line names its number. */
export function parseJsonl(file: ImportFile): Located[] {
  const out: Located[] = [];
  const lines = file.content.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.trim();
    if (text === '') continue;
    if (exceedsDepth(text)) throw badInput(`${file.path}:${i + 1}: ${DEPTH}`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw badInput(`${file.path}:${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    const line = i + 1;
    const loc: Located = { value, file: file.path, line, lineOf: () => line };
    const twice = duplicateKey(text);
    if (twice) throw locatedError(loc, twice.path, 'given twice on this line');
    out.push(checked(loc));
  }
  if (out.length === 0) throw badInput(`${file.path}: empty (no JSON lines)`);
  return out;
}

/**
 * One JSON document read as JSON (another tool's log, an export's judges.json): the storable-JSON checks,
 * and a key given twice refused naming its path, as a JSONL line and a YAML/JSON document refuse it.
 */
export function parseJsonDocument(file: ImportFile): unknown {
  const value = parseCheckedJson(file.content, file.path);
  const twice = duplicateKey(file.content);
  if (twice) throw badInput(`${file.path}: ${fieldPath(twice.path)}: given twice (which of the values is meant cannot be told)`);
  return value;
}

/** One YAML or JSON document (JSON is YAML); field lines come from the YAML node ranges. */
export function parseDocumentFile(file: ImportFile): Located {
  checkYamlSize(file.content, file.path);
  const lineCounter = new LineCounter();
  const doc = parseDocument(file.content, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) {
    const line = err.pos ? lineCounter.linePos(err.pos[0]).line : null;
    const kind = /\.json$/i.test(file.path) ? 'JSON' : 'YAML';
    // The YAML composer recurses; it reports its own stack overflow as a parse error.
    const problem = /call stack/i.test(err.message) ? DEPTH : err.message.split('\n')[0];
    throw badInput(`${where(file.path, line)}: not valid ${kind} (${problem})`);
  }
  const value = yamlDocumentToJs(doc, file.path);
  if (value === null || value === undefined) throw badInput(`${file.path}: empty document`);
  const lineOf = (path: readonly PropertyKey[]): number | null => {
    // The deepest node that exists on the path: an unknown or missing field points at its parent.
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n) as unknown[], true);
      if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
    }
    return null;
  };
  const numberText = (path: readonly PropertyKey[]): string | undefined => {
    const node = doc.getIn(path as unknown[], true);
    if (!isScalar(node) || typeof node.value !== 'number' || !node.range) return undefined;
    const text = file.content.slice(node.range[0], node.range[1]);
    return text === String(node.value) ? undefined : text;
  };
  const start = doc.contents && isNode(doc.contents) && doc.contents.range ? lineCounter.linePos(doc.contents.range[0]).line : 1;
  return checked({ value, file: file.path, line: start, lineOf, numberText });
}

const DEPTH = `nested deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * Every parsed value passes the storable-JSON walk before a schema sees it (iterative: nesting, NUL,
 * lone surrogates, non-finite numbers), so no field of any import format can carry what text columns
 * and jsonb cannot hold, and nothing recursive meets a 10,000-deep document.
 */
function checked(loc: Located): Located {
  const p = jsonValueProblem(loc.value);
  if (p) throw locatedError(loc, p.path, p.problem);
  return loc;
}

/** A JSON Lines file (one value a line), by extension; anything else is one YAML/JSON document. */
export const isJsonl = (path: string): boolean => /\.jsonl$/i.test(path);

/** Every value of a file: one per JSONL line, or the single YAML/JSON document. */
export function parseValues(file: ImportFile): Located[] {
  return isJsonl(file.path) ? parseJsonl(file) : [parseDocumentFile(file)];
}
