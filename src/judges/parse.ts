import { jsonrepair } from 'jsonrepair';
import { topLevelObjectSpans } from '../domain/json-spans.ts';
import { duplicateKeyError } from './json-duplicate-keys.ts';
import type { JudgeReply } from './types.ts';

/**
 * From a judge reply to a JSON value. The structured field (tool input, json_schema content) is the
 * only source of verdicts when the provider gave one. Otherwise the reply is text: strict JSON, else
 * JSON objects found in prose (jsonrepair mends near-JSON: trailing commas, single quotes, fences);
 * prose holding two different objects, an object with a key given twice, one left open at the end
 * of the reply, or one that jsonrepair would mend by deleting an ellipsis or a comment is refused
 * rather than resolved.
 * A JSON object that also occurs in the untrusted answer is never taken as a verdict: a judge that
 * echoes the answer cannot smuggle out the answer's own fake verdict.
 */

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

const squash = (s: string): string => s.replace(/\s+/g, '');


/**
 * What jsonrepair would delete without a trace, outside strings: an ellipsis standing for elements left
 * out (`"claims":[...]` became [] and scored correctness 0, ok) or a comment (`/* 12 more *\/`). Both are
 * the judge saying something the repaired JSON no longer holds, so the reply is refused, not mended.
 */
function dropsContent(candidate: string): string | null {
  let quote: string | null = null;
  for (let i = 0; i < candidate.length; i++) {
    const c = candidate[i]!;
    if (quote !== null) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (candidate.startsWith('...', i)) return "the reply's JSON has an ellipsis where jsonrepair would drop it (elements left out?): write every element out";
    else if (candidate.startsWith('/*', i) || candidate.startsWith('//', i)) return "the reply's JSON has a comment where jsonrepair would drop it: give JSON only";
  }
  return null;
}

/** The value and the JSON text it was read from (the candidate, or jsonrepair's mended text). */
function tryParse(candidate: string): { value: unknown; json: string } | { error: string } | null {
  try {
    return { value: JSON.parse(candidate), json: candidate };
  } catch {
    const dropped = dropsContent(candidate);
    try {
      const json = jsonrepair(candidate);
      const value: unknown = JSON.parse(json);
      return dropped ? { error: dropped } : { value, json };
    } catch {
      return null;
    }
  }
}

const CUT_OFF = 'the reply ends inside a JSON object that is never closed (cut off?)';

/** The span (one top-level object) is never closed: with another `{` after it, it is still the only span. */
const openAtEnd = (span: string): boolean => topLevelObjectSpans(`${span}{`).length === 1;

export function parseReply(reply: JudgeReply, untrusted: readonly string[]): Parsed {
  if (reply.problem) return { ok: false, error: reply.problem };
  if (reply.structured !== undefined && reply.structured !== null) {
    if (typeof reply.structured !== 'string') return { ok: true, value: reply.structured };
    const p = tryParse(reply.structured);
    if (!p) return { ok: false, error: 'structured output is not JSON' };
    if ('error' in p) return { ok: false, error: p.error };
    const str = reply.structured.trim();
    if (str.startsWith('{') && openAtEnd(str)) return { ok: false, error: 'structured output ends inside a JSON object that is never closed (cut off?)' };
    const dup = duplicateKeyError(p.json);
    return dup ? { ok: false, error: dup } : { ok: true, value: p.value };
  }
  const text = reply.text.trim();
  if (text === '') return { ok: false, error: 'empty reply' };
  const echoed = untrusted.map(squash).filter((u) => u.length > 0);
  const fromAnswer = (c: string): boolean => echoed.some((u) => u.includes(squash(c)));
  const found: Array<{ value: unknown; json: string }> = [];
  for (const { from, to } of topLevelObjectSpans(text)) {
    const span = text.slice(from, to);
    if (fromAnswer(span)) continue;
    const p = tryParse(span);
    if (!p) continue;
    const cutOff = to === text.length && openAtEnd(span);
    if ('error' in p) return { ok: false, error: cutOff ? CUT_OFF : p.error };
    if (typeof p.value !== 'object' || p.value === null || Array.isArray(p.value)) continue;
    // jsonrepair would close an object the reply ends inside, keeping whatever arrived (13 of 14 claims,
    // say): a cut-off reply graded as complete. The provider called the reply complete (a length stop
    // is status truncated before parsing), so it is invalid output, asked again.
    if (cutOff) return { ok: false, error: CUT_OFF };
    found.push(p);
  }
  if (found.length === 0) return { ok: false, error: 'no JSON object in the reply (only prose, or only JSON copied from the answer)' };
  // Two different objects are two answers (a draft and a correction, say): taking either one would be
  // choosing for the judge, so the judge is asked for one. The same object repeated is one answer.
  const distinct = new Set(found.map((p) => JSON.stringify(p.value))).size;
  if (distinct > 1) return { ok: false, error: `the reply holds ${distinct} different JSON objects; give exactly one` };
  // A key given twice is two values where JSON.parse keeps the last one: the judge is asked which.
  for (const p of found) {
    const dup = duplicateKeyError(p.json);
    if (dup) return { ok: false, error: dup };
  }
  return { ok: true, value: found[0]!.value };
}
