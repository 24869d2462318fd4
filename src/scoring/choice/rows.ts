import { badInput } from '../../domain/errors.ts';
import { assertUniqueKeys } from '../../domain/json-check.ts';
import { rewrittenNumbers } from './number-text.ts';
import { keyOption, optionKey } from './options.ts';
import { assertExactId } from '../row-id.ts';

/**
 * Key and response rows of `assay score choice` (design §3), read from JSON Lines text so that every
 * problem names its file and line. Ids and answers may be JSON numbers; they are compared as strings.
 */
export interface KeyRow {
  id: string;
  answer: string;
  category?: string;
  domain?: string;
  /** This item's options when they differ from the key-wide set. */
  options?: string[];
  line?: number;
}

export interface ResponseRow {
  id: string;
  model: string;
  /** null (a failed call) scores as invalid. */
  response: string | null;
  line?: number;
}

type Raw = Record<string, unknown>;

/** Non-blank lines parsed as JSON objects, with their 1-based line numbers. */
export function jsonlRows(text: string, where: string): Array<{ line: number; value: Raw }> {
  const out: Array<{ line: number; value: Raw }> = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const s = lines[i]!.trim();
    if (s === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(s);
    } catch (e) {
      throw badInput(`${where}: line ${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badInput(`${where}: line ${i + 1}: expected a JSON object`);
    // JSON.parse keeps the last of a key given twice ({"answer":"B","answer":"C"} read as C): refused.
    assertUniqueKeys(s, `${where}: line ${i + 1}`);
    out.push({ line: i + 1, value: v as Raw });
  }
  if (out.length === 0) throw badInput(`${where}: empty (no JSON lines)`);
  return out;
}

function idOf(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  return undefined;
}

function optionalText(v: unknown, field: string, at: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' && typeof v !== 'number') throw badInput(`${at}: "${field}" must be a string`);
  return String(v);
}

/** A key's answer or option given as a JSON number that JSON.parse does not keep as written (number-text.ts). */
function refuseRewrittenNumbers(line: string, value: Raw, at: string): void {
  if (typeof value.answer !== 'number' && !(Array.isArray(value.options) && value.options.some((o) => typeof o === 'number'))) return;
  const [n] = rewrittenNumbers(line);
  if (n) throw badInput(`${at}: ${n.path} ${n.text} is a JSON number, which reads as ${String(n.value)} (a response giving ${n.text} would not name it); write it as a string: "${n.text}"`);
}

export function parseKey(text: string, where: string): KeyRow[] {
  const seen = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  return jsonlRows(text, where).map(({ line, value }) => {
    const at = `${where}: line ${line}`;
    assertExactId(value.id, at);
    const id = idOf(value.id);
    if (id === undefined) throw badInput(`${at}: key row has no "id"`);
    refuseRewrittenNumbers(lines[line - 1]!, value, at);
    const written = idOf(value.answer);
    if (written === undefined) throw badInput(`${at}: key row '${id}' has no "answer"`);
    const answer = keyOption(written);
    if (answer === null) throw badInput(`${at}: answer '${written}' is not one option (a letter, number or word): no response could name it`);
    const first = seen.get(id);
    if (first !== undefined) throw badInput(`${at}: duplicate key id '${id}' (first on line ${first})`);
    seen.set(id, line);
    const row: KeyRow = { id, answer, line };
    const category = optionalText(value.category, 'category', at);
    const domain = optionalText(value.domain, 'domain', at);
    if (category !== undefined) row.category = category;
    if (domain !== undefined) row.domain = domain;
    if (value.options !== undefined) {
      if (!Array.isArray(value.options) || value.options.length < 2 || value.options.some((o) => idOf(o) === undefined)) {
        throw badInput(`${at}: "options" must be an array of at least two strings`);
      }
      row.options = value.options.map((o) => {
        const option = keyOption(idOf(o)!);
        if (option === null) throw badInput(`${at}: option '${idOf(o)}' is not one option (a letter, number or word): no response could name it`);
        return option;
      });
      const byKey = new Map<string, string>();
      for (const o of row.options) {
        const same = byKey.get(optionKey(o));
        if (same !== undefined) throw badInput(`${at}: option '${o}' is listed twice${same === o ? '' : ` (as '${same}')`}`);
        byKey.set(optionKey(o), o);
      }
      if (!byKey.has(optionKey(answer))) {
        throw badInput(`${at}: answer '${answer}' is not one of its options (${row.options.join(', ')})`);
      }
    }
    return row;
  });
}

export function parseResponses(text: string, where: string): ResponseRow[] {
  return jsonlRows(text, where).map(({ line, value }) => {
    const at = `${where}: line ${line}`;
    assertExactId(value.id, at);
    const id = idOf(value.id);
    if (id === undefined) throw badInput(`${at}: response row has no "id"`);
    const model = idOf(value.model);
    if (model === undefined) throw badInput(`${at}: response row has no "model"`);
    const r = value.response;
    if (r !== null && typeof r !== 'string') throw badInput(`${at}: "response" must be a string (or null for a failed call)`);
    return { id, model, response: r, line };
  });
}
