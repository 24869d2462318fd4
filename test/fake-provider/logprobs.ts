/**
 * Token log-probabilities for the fake's Chat Completions replies (`logprobs: true`). The content is cut
 * into tokens the way a BPE tokenizer roughly would — JSON punctuation alone, runs of other characters
 * together — with three deliberate complications the adapter must survive:
 * - item verdicts that are several tokens (`in`+`correct`, `part`+`ial`, `miss`+`ing`);
 * - a non-ASCII character split across two tokens (token text lossy, `bytes` exact, as OpenAI does);
 * - every non-verdict token carries probability STRUCTURE_PROB, so a method that counts tokens outside
 *   the verdict gets a different number.
 * An item with confidence p gets logprob ln(p)/m on each of its verdict's m tokens (their joint
 * probability is p), and at the verdict's first token the other three verdicts share the rest of the
 * first token's mass equally (they appear in top_logprobs when asked).
 */
import { ITEM_VERDICTS, type ItemVerdict } from '../../src/domain/verdicts.ts';

export const STRUCTURE_PROB = 0.95;

/** How the fake tokenizes each verdict value. */
export const VERDICT_TOKENS: Readonly<Record<ItemVerdict, readonly string[]>> = {
  correct: ['correct'],
  partial: ['part', 'ial'],
  incorrect: ['in', 'correct'],
  missing: ['miss', 'ing'],
};

/** OpenAI's logprob for "practically impossible" (JSON has no -Infinity). */
const FLOOR = -9999;

export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}
export interface TokenLogprob extends TopLogprob {
  top_logprobs: TopLogprob[];
}

const ln = (p: number): number => (p > 0 ? Math.log(p) : FLOOR);
const entry = (token: string, logprob: number, bytes = [...Buffer.from(token, 'utf8')]): TopLogprob => ({ token, logprob, bytes });

/** JSON punctuation alone, an escape pair alone, anything else in runs. Concatenated, the pieces are the text. */
function pieces(text: string): string[] {
  return text.match(/\\.|[{}[\]:,"]|[^{}[\]:,"\\]+/gs) ?? [];
}

/** A run with a multi-byte character is cut inside that character (two tokens sharing its bytes). */
function splitBytes(piece: string): Array<{ token: string; bytes: number[] }> {
  const buf = Buffer.from(piece, 'utf8');
  const i = [...buf].findIndex((b) => b >= 0xc0);
  if (i < 0) return [{ token: piece, bytes: [...buf] }];
  const cut = i + 1;
  return [buf.subarray(0, cut), buf.subarray(cut)].filter((b) => b.length > 0).map((b) => ({ token: b.toString('utf8'), bytes: [...b] }));
}

function itemIds(content: string): string[] {
  try {
    const v = JSON.parse(content);
    return Array.isArray(v?.items) ? v.items.map((it: { id?: unknown }) => String(it?.id)) : [];
  } catch {
    return [];
  }
}

/** The `logprobs.content` array for `content`; `top` alternatives per token (0 = none). */
export function fakeLogprobs(content: string, confidence: Record<string, number>, top: number): TokenLogprob[] {
  const ids = itemIds(content);
  const ps = pieces(content);
  const out: TokenLogprob[] = [];
  let item = 0;
  const structure = (token: string, bytes?: number[]) => {
    const e = entry(token, ln(STRUCTURE_PROB), bytes);
    out.push({ ...e, top_logprobs: top > 0 ? [e] : [] });
  };
  for (let i = 0; i < ps.length; i++) {
    const piece = ps[i]!;
    // A value right after `"verdict":"` that is an item verdict (claims' verdicts are true/false/unverifiable).
    const isVerdict = ps[i - 1] === '"' && ps[i - 2] === ':' && ps[i - 3] === '"' && ps[i - 4] === 'verdict' && ps[i + 1] === '"' && (ITEM_VERDICTS as readonly string[]).includes(piece);
    if (!isVerdict) {
      for (const t of splitBytes(piece)) structure(t.token, t.bytes);
      continue;
    }
    const verdict = piece as ItemVerdict;
    const p = confidence[ids[item] ?? ''] ?? 1;
    item += 1;
    const toks = VERDICT_TOKENS[verdict];
    const each = ln(p) / toks.length;
    toks.forEach((t, k) => {
      const chosen = entry(t, each);
      let alts: TopLogprob[] = [chosen];
      if (k === 0) {
        const rest = (1 - Math.exp(each)) / 3;
        const others = ITEM_VERDICTS.filter((v) => v !== verdict).map((v) => entry(VERDICT_TOKENS[v][0]!, ln(rest)));
        alts = [chosen, ...others].sort((a, b) => b.logprob - a.logprob);
      }
      out.push({ ...chosen, top_logprobs: alts.slice(0, top) });
    });
  }
  return out;
}
