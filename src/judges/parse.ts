import { jsonrepair } from 'jsonrepair';
import type { JudgeReply } from './types.ts';

/**
 * From a judge reply to a JSON value. The structured field (tool input, json_schema content) is the
 * only source of verdicts when the provider gave one. Otherwise the reply is text: strict JSON, else
 * JSON objects found in prose (jsonrepair mends near-JSON: trailing commas, single quotes, fences).
 * A JSON object that also occurs in the untrusted answer is never taken as a verdict: a judge that
 * echoes the answer cannot smuggle out the answer's own fake verdict.
 */

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

const squash = (s: string): string => s.replace(/\s+/g, '');

/** Balanced {...} spans, outermost first, skipping braces inside strings. */
export function jsonObjectSpans(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth === 0) spans.push(text.slice(start, i + 1));
    }
  }
  // An unclosed object at the end is near-JSON worth one repair attempt.
  if (depth > 0 && start >= 0) spans.push(text.slice(start));
  return spans;
}

function tryParse(candidate: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(candidate) };
  } catch {
    try {
      return { value: JSON.parse(jsonrepair(candidate)) };
    } catch {
      return null;
    }
  }
}

export function parseReply(reply: JudgeReply, untrusted: readonly string[]): Parsed {
  if (reply.structured !== undefined && reply.structured !== null) {
    if (typeof reply.structured !== 'string') return { ok: true, value: reply.structured };
    const p = tryParse(reply.structured);
    return p ? { ok: true, value: p.value } : { ok: false, error: 'structured output is not JSON' };
  }
  const text = reply.text.trim();
  if (text === '') return { ok: false, error: 'empty reply' };
  const echoed = untrusted.map(squash).filter((u) => u.length > 0);
  const fromAnswer = (c: string): boolean => echoed.some((u) => u.includes(squash(c)));
  for (const span of jsonObjectSpans(text)) {
    if (fromAnswer(span)) continue;
    const p = tryParse(span);
    if (p && typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value)) return { ok: true, value: p.value };
  }
  return { ok: false, error: 'no JSON object in the reply (only prose, or only JSON copied from the answer)' };
}
