import { jsonrepair } from 'jsonrepair';
import { duplicateKey, jsonPath, KEY_GIVEN_TWICE } from '../../domain/json-check.ts';
import { topLevelObjectSpans, type JsonSpan } from '../../domain/json-spans.ts';
import { parseExactNumber } from './expression.ts';

/**
 * Finds the JSON object holding `key` in a model's free-text answer and parses it, mending what models
 * get wrong and saying so:
 *   - the LAST fenced block (```json … ```) that mentions the key wins, else the last top-level {…} in
 *     the text that mentions it; an object cut off at the end of the text is taken to the end;
 *   - LaTeX inside strings (`"\frac{1}{2}"`, where `\f` would silently be a form feed) gets its
 *     backslashes escaped;
 *   - bare expressions in arrays (`[\frac{1}{2}, 1/4]`) are quoted, to be evaluated exactly later;
 *   - anything still invalid goes through jsonrepair (truncation, trailing commas, quotes…).
 */
export type Extracted = { ok: true; value: unknown; repairs: string[] } | { ok: false; error: string };

export function extractJson(text: string, key: string): Extracted {
  // `key` as a key ("pieces": or pieces:), not the word in prose ("all 7 pieces are used", "{the pieces}")
  const asKey = new RegExp(String.raw`\b${key}\b["']?\s*:`);
  const region = lastFenceWith(text, asKey) ?? text;
  const span = lastObjectWith(region, asKey);
  if (span === null) return { ok: false, error: `no JSON object with "${key}" found` };
  const raw = region.slice(span.from, span.to).trim();
  const repairs: string[] = [];
  const escaped = escapeLatex(raw);
  if (escaped !== raw) repairs.push('escaped LaTeX backslashes inside JSON strings');
  const quoted = quoteBareExpressions(escaped);
  if (quoted !== escaped) repairs.push('quoted bare numeric expressions');
  try {
    return parsed(quoted, JSON.parse(quoted), repairs);
  } catch (e) {
    const why = (e as Error).message;
    try {
      const mended = jsonrepair(quoted);
      return parsed(mended, JSON.parse(mended) as unknown, [...repairs, `jsonrepair fixed invalid JSON (${why})`]);
    } catch {
      return { ok: false, error: `not valid JSON and jsonrepair could not fix it (${why})` };
    }
  }
}

/** JSON.parse keeps the last of a key given twice ("pieces" twice, a piece's "vertices" twice): which was meant cannot be told. */
function parsed(json: string, value: unknown, repairs: string[]): Extracted {
  const twice = duplicateKey(json);
  if (twice) return { ok: false, error: `${jsonPath(twice.path)}: ${KEY_GIVEN_TWICE}` };
  return { ok: true, value, repairs };
}

/** Content of the last ``` block giving the key; an unterminated last block runs to the end. */
function lastFenceWith(text: string, key: RegExp): string | null {
  const parts = text.split(/^[ \t]*```[^\n]*$/m);
  // parts at odd indices are inside fences (an odd count of fences leaves the tail inside one)
  for (let i = parts.length - 1; i >= 1; i--) {
    if (i % 2 === 1 && key.test(parts[i]!)) return parts[i]!;
  }
  return null;
}

/** The last top-level {…} span giving `key` (an unclosed one runs to the end). */
function lastObjectWith(s: string, key: RegExp): JsonSpan | null {
  return topLevelObjectSpans(s).findLast((span) => key.test(s.slice(span.from, span.to))) ?? null;
}

/**
 * Inside JSON strings, a backslash that starts a LaTeX command (two or more letters, not a \uXXXX
 * escape) or LaTeX spacing (`\,` `\;` `\!`) is doubled, so it survives JSON.parse as written.
 */
function escapeLatex(s: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (!inString) {
      if (ch === '"') inString = true;
      out += ch;
      continue;
    }
    if (ch === '"') {
      inString = false;
      out += ch;
    } else if (ch === '\\') {
      const rest = s.slice(i + 1);
      const latex = /^[a-zA-Z]{2,}/.test(rest) && !/^u[0-9a-fA-F]{4}/.test(rest);
      if (latex || /^[,;:! ()]/.test(rest)) out += '\\\\';
      else {
        out += ch + (s[i + 1] ?? '');
        i++;
      }
    } else {
      out += ch;
    }
  }
  return out;
}

const JSON_LITERAL = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)$/;

/** `[\frac{1}{2}, -1/4]` → `["\\frac{1}{2}", "-1/4"]` when every such token is a valid expression. */
function quoteBareExpressions(s: string): string {
  let out = '';
  const stack: string[] = [];
  let inString = false;
  let valueStart = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += s[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (valueStart && stack.at(-1) === '[' && !/[\s"[{\]]/.test(ch)) {
      const end = bareTokenEnd(s, i);
      const token = s.slice(i, end).trim();
      const tail = s.slice(i, end).slice(s.slice(i, end).trimEnd().length);
      out += !JSON_LITERAL.test(token) && 'value' in parseExactNumber(token) ? JSON.stringify(token) + tail : s.slice(i, end);
      i = end - 1;
      valueStart = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') stack.push(ch);
    else if (ch === ']' || ch === '}') stack.pop();
    if (!/\s/.test(ch)) valueStart = ch === '[' || ch === ',';
    out += ch;
  }
  return out;
}

/** Where a bare array element ends: the next ',' or ']' outside {} and () groups. */
function bareTokenEnd(s: string, i: number): number {
  let depth = 0;
  for (let k = i; k < s.length; k++) {
    const ch = s[k]!;
    if (ch === '{' || ch === '(') depth++;
    else if (ch === '}' || ch === ')') {
      if (depth === 0) return k;
      depth--;
    } else if ((ch === ',' || ch === ']' || ch === '\n') && depth === 0) return k;
  }
  return s.length;
}
