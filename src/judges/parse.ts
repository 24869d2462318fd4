import { jsonrepair } from 'jsonrepair';
import { topLevelObjectSpans } from '../domain/json-spans.ts';
import type { JudgeReply } from './types.ts';

/**
 * From a judge reply to a JSON value. The structured field (tool input, json_schema content) is the
 * only source of verdicts when the provider gave one. Otherwise the reply is text: strict JSON, else
 * JSON objects found in prose (jsonrepair mends near-JSON: trailing commas, single quotes, fences);
 * prose holding two different objects is refused rather than resolved.
 * A JSON object that also occurs in the untrusted answer is never taken as a verdict: a judge that
 * echoes the answer cannot smuggle out the answer's own fake verdict.
 */

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

const squash = (s: string): string => s.replace(/\s+/g, '');


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
  const found: unknown[] = [];
  for (const { from, to } of topLevelObjectSpans(text)) {
    const span = text.slice(from, to);
    if (fromAnswer(span)) continue;
    const p = tryParse(span);
    if (p && typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value)) found.push(p.value);
  }
  if (found.length === 0) return { ok: false, error: 'no JSON object in the reply (only prose, or only JSON copied from the answer)' };
  // Two different objects are two answers (a draft and a correction, say): taking either one would be
  // choosing for the judge, so the judge is asked for one. The same object repeated is one answer.
  const distinct = new Set(found.map((v) => JSON.stringify(v))).size;
  if (distinct > 1) return { ok: false, error: `the reply holds ${distinct} different JSON objects; give exactly one` };
  return { ok: true, value: found[0] };
}
