import { badInput } from './errors.ts';
import { CAPS, MAX_JSON_DEPTH, textProblem } from './limit-values.ts';

/**
 * Checks every JSON (or YAML) document gets before anything recursive touches it: zod, drizzle's
 * JSON.stringify and the database drivers all recurse, so a 10,000-deep body would overflow their stack.
 * Both checks here are loops with an explicit stack. V8's JSON.parse is not recursive, so the order is:
 * depth scan of the text (fail fast, allocates nothing), JSON.parse, then the value walk.
 */

export interface JsonProblem {
  /** Path of the offending value inside the document ([] = the document itself). */
  path: Array<string | number>;
  problem: string;
}

const depthProblem = `nested deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * Whether JSON text nests deeper than `max` arrays/objects, counting brackets outside strings. With
 * `perLine` (JSON Lines) every line is its own document, so one malformed line cannot carry depth over.
 */
export function exceedsDepth(text: string, max: number = MAX_JSON_DEPTH, perLine = false): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (perLine && c === 10) {
      depth = 0;
      inString = false;
    } else if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/**
 * The first value of a parsed document that cannot be stored, or null: nesting deeper than the limit,
 * a string or key with NUL / a lone surrogate or over CAPS.longText, a number that is not finite
 * (JSON.parse turns 1e999 into Infinity, which JSON.stringify would silently write as null).
 */
export function jsonValueProblem(root: unknown, maxDepth: number = MAX_JSON_DEPTH): JsonProblem | null {
  interface Frame {
    value: unknown;
    depth: number;
    parent: Frame | null;
    key: string | number | null;
  }
  const pathOf = (f: Frame): Array<string | number> => {
    const out: Array<string | number> = [];
    for (let x: Frame | null = f; x && x.key !== null; x = x.parent) out.push(x.key);
    return out.reverse();
  };
  const stack: Frame[] = [{ value: root, depth: 0, parent: null, key: null }];
  while (stack.length > 0) {
    const f = stack.pop()!;
    const v = f.value;
    if (typeof v === 'string') {
      const p = textProblem(v) ?? (v.length > CAPS.longText && codePoints(v) > CAPS.longText ? `must be at most ${CAPS.longText} characters` : null);
      if (p) return { path: pathOf(f), problem: p };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path: pathOf(f), problem: 'is not a finite number' };
    } else if (v !== null && typeof v === 'object') {
      if (f.depth >= maxDepth) return { path: pathOf(f), problem: depthProblem };
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: f.depth + 1, parent: f, key: i });
      } else {
        for (const k of Object.keys(v)) {
          const p = textProblem(k) ?? (k.length > CAPS.path ? `key must be at most ${CAPS.path} characters` : null);
          if (p) return { path: [...pathOf(f), k.length > 40 ? `${k.slice(0, 40)}…` : k], problem: `key ${p}` };
          stack.push({ value: (v as Record<string, unknown>)[k], depth: f.depth + 1, parent: f, key: k });
        }
      }
    }
  }
  return null;
}

/** Characters as zod counts them for length caps: Unicode code points. */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `meta.a[0]` from a path; '' for the root. */
export function jsonPath(path: ReadonlyArray<string | number>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/**
 * Parses one JSON document with the checks above. Problems throw bad_input: "where: not valid JSON (…)",
 * or with the offending value's path as `format` writes it (default "where: path: problem").
 */
export function parseCheckedJson(text: string, where: string, format: (path: string, problem: string) => string = (at, p) => `${where}: ${at ? `${at}: ` : ''}${p}`): unknown {
  if (exceedsDepth(text)) throw badInput(format('', depthProblem));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badInput(`${where}: not valid JSON (${(e as Error).message})`);
  }
  const p = jsonValueProblem(value);
  if (p) throw badInput(format(jsonPath(p.path), p.problem));
  return value;
}

/**
 * The first object key a JSON text gives twice (a key's path), or null. JSON.parse keeps the last value
 * silently, so a body saying {"scopes":["read"],"scopes":["admin"]} would be read as one of the two with
 * nothing said. Call it on text JSON.parse accepted (well-formed): a loop with an explicit stack, like
 * the depth scan; keys compare decoded ("a" and "\u0061" are one key).
 */
export function duplicateKey(text: string): { path: Array<string | number> } | null {
  if (!text.includes('{')) return null;
  // Per open container: an object's keys so far and its current key, or an array's current index.
  const stack: Array<{ keys: Set<string> | null; at: string | number }> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // The closing quote is the next one not escaped by an odd run of backslashes (indexOf: long texts
      // of imported answers are skipped at once, not a character at a time).
      let j = text.indexOf('"', i + 1);
      for (;;) {
        // Unterminated: not JSON.parse's text after all; nothing to say about its keys.
        if (j < 0) return null;
        let k = j - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      if (expectKey) {
        const top = stack[stack.length - 1]!;
        const raw = text.slice(i + 1, j);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.keys!.has(key)) return { path: [...stack.slice(0, -1).map((l) => l.at), key] };
        top.keys!.add(key);
        top.at = key;
        expectKey = false;
      }
      i = j;
    } else if (c === 123) {
      stack.push({ keys: new Set(), at: '' });
      expectKey = true;
    } else if (c === 91) stack.push({ keys: null, at: 0 });
    else if (c === 125 || c === 93) {
      // `{}` leaves no key pending: a string after it in an array (`[{},"x"]`) is a value.
      stack.pop();
      expectKey = false;
    } else if (c === 44) {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
    }
  }
  return null;
}

/** The problem every reader of a JSON text or line names at a key given twice (the API body guard too). */
export const KEY_GIVEN_TWICE = 'key given twice (JSON keeps only one of the values; give it once)';

/**
 * Throws bad_input "where: path: key given twice (…)" when text JSON.parse accepted gives a key twice in
 * one object: which of the values was meant cannot be told, so the document (or line) is refused.
 */
export function assertUniqueKeys(text: string, where: string): void {
  const twice = duplicateKey(text);
  if (twice) throw badInput(`${where}: ${jsonPath(twice.path)}: ${KEY_GIVEN_TWICE}`);
}

/** Throws bad_input when a parsed value fails jsonValueProblem. */
export function assertStorableJson(value: unknown, where: string): void {
  const p = jsonValueProblem(value);
  if (p) {
    const at = jsonPath(p.path);
    throw badInput(`${where}: ${at ? `${at}: ` : ''}${p.problem}`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Bytes → text, refusing invalid UTF-8 instead of turning it into U+FFFD (which would store something
 * the user never sent). A leading byte-order mark is kept, so callers that strip it still can.
 */
export function decodeUtf8(bytes: Uint8Array, where: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw badInput(`${where}: not valid UTF-8 (first invalid byte at offset ${firstInvalidUtf8(bytes)})`);
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const x = b[i]!;
    const n = x < 0x80 ? 0 : x >= 0xc2 && x <= 0xdf ? 1 : x >= 0xe0 && x <= 0xef ? 2 : x >= 0xf0 && x <= 0xf4 ? 3 : -1;
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) {
      const y = b[i + k];
      if (y === undefined || y < 0x80 || y > 0xbf) return i;
    }
    // Overlong forms, surrogates and code points above U+10FFFF.
    const y = b[i + 1]!;
    if ((x === 0xe0 && y < 0xa0) || (x === 0xed && y > 0x9f) || (x === 0xf0 && y < 0x90) || (x === 0xf4 && y > 0x8f)) return i;
    i += n + 1;
  }
  return b.length;
}
