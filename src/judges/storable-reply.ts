import type { JudgeReply } from './types.ts';

/**
 * A provider's reply made storable before anything reads it. PostgreSQL text and jsonb cannot hold
 * U+0000 (and jsonb refuses the `\u0000` escape), so a judge that emits one would fail the grade's
 * insert — a database error where the contract wants a status. The character becomes U+FFFD, which
 * keeps the evidence visible (`raw_output` shows where it was) without changing any verdict keyword.
 */

const NUL = /\u0000/g;
const NUL_ESCAPE = /\\u0000/gi;

const clean = (s: string): string => s.replace(NUL, '\uFFFD').replace(NUL_ESCAPE, '\\ufffd');

/** Strings inside a structured field, walked without recursion (a deep tool input must not overflow). */
function cleanValue(value: unknown): unknown {
  if (typeof value === 'string') return clean(value);
  if (!value || typeof value !== 'object') return value;
  const root = structuredClone(value) as Record<string, unknown>;
  const stack: Array<Record<string, unknown>> = [root];
  while (stack.length) {
    const node = stack.pop()!;
    for (const key of Object.keys(node)) {
      const v = node[key];
      if (typeof v === 'string') node[key] = clean(v);
      else if (v && typeof v === 'object') stack.push(v as Record<string, unknown>);
      if (key.includes('\u0000')) {
        node[clean(key)] = node[key];
        delete node[key];
      }
    }
  }
  return root;
}

export function storableReply(reply: JudgeReply): JudgeReply {
  const text = clean(reply.text);
  const stopDetail = reply.stopDetail === undefined ? undefined : clean(reply.stopDetail);
  const structured = reply.structured === undefined ? undefined : cleanValue(reply.structured);
  if (text === reply.text && stopDetail === reply.stopDetail && structured === reply.structured) return reply;
  return { ...reply, text, ...(stopDetail !== undefined ? { stopDetail } : {}), ...(structured !== undefined ? { structured } : {}) };
}
