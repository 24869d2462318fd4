import { ITEM_VERDICTS, type ItemVerdict } from '../domain/verdicts.ts';

/**
 * Per-item verdict confidence from token log-probabilities (issue 13 §4). The judge's structured
 * output is JSON text produced token by token; with `logprobs` the provider reports each token's
 * log-probability, and with `top_logprobs` the most likely alternatives at each position.
 *
 * Method, per rubric item:
 * 1. Locate the item's verdict value in the reply text: the k-th string value of a `"verdict"` key
 *    that is an item verdict (correct|partial|incorrect|missing) belongs to the k-th entry of `items`
 *    (claims' verdicts are true|false|unverifiable, so they never collide). The located values must
 *    spell exactly the parsed items' verdicts, or no confidence is claimed.
 * 2. Place every token on the reply by its UTF-8 bytes (`bytes`, exact even where a token splits a
 *    character), and check that the tokens spell the reply byte for byte.
 * 3. `probability` = exp(Σ logprob) over the tokens that overlap the verdict's characters: the
 *    probability the judge gave to writing that verdict, given everything before it. A token that also
 *    holds neighbouring punctuation (`":"correct`) is counted whole — the punctuation is all but certain
 *    in a schema-constrained reply, so this barely lowers the figure.
 * 4. `distribution` (only with top_logprobs ≥ 2): at the verdict's first token, each alternative that
 *    continues the same prefix is assigned to the verdict it begins (the four verdicts start with
 *    different letters, so a non-empty start names at most one), its probability added to that verdict,
 *    and the four sums are normalised. This is the judge's spread over the verdicts at the moment it
 *    chose; for the chosen verdict it is the first-token share, which can exceed `probability` when
 *    the verdict takes several tokens.
 * The reply's text and verdicts are unchanged by any of this: confidence is reported beside them.
 */

export interface TopTokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
}

export interface TokenLogprob extends TopTokenLogprob {
  top_logprobs?: TopTokenLogprob[] | null;
}

export interface VerdictProbability {
  id: string;
  verdict: ItemVerdict;
  /** exp(Σ logprob) over the verdict's tokens. */
  probability: number;
  /** Tokens the verdict spans. */
  tokens: number;
  /** Share of each verdict at the verdict's first token (top_logprobs ≥ 2 only), summing to 1. */
  distribution?: Record<ItemVerdict, number>;
}

export type ReplyConfidence = { source: 'logprobs'; items: VerdictProbability[] } | { source: 'none'; reason: string };

interface Span {
  start: number;
  end: number;
  value: ItemVerdict;
}

/** The JSON string that starts at `i` (a quote): its end index (the closing quote). */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j;
  }
  return -1;
}

const skipSpace = (text: string, i: number): number => {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
};

/** Character spans of the values of `"verdict"` keys that are item verdicts, in reply order. */
function verdictSpans(text: string): Span[] {
  const spans: Span[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '"') continue;
    const end = stringEnd(text, i);
    if (end < 0) break;
    const colon = skipSpace(text, end + 1);
    if (text.slice(i, end + 1) === '"verdict"' && text[colon] === ':') {
      const q = skipSpace(text, colon + 1);
      if (text[q] === '"') {
        const vEnd = stringEnd(text, q);
        if (vEnd < 0) break;
        let value: unknown;
        try {
          value = JSON.parse(text.slice(q, vEnd + 1));
        } catch {
          value = undefined;
        }
        if ((ITEM_VERDICTS as readonly unknown[]).includes(value)) spans.push({ start: q + 1, end: vEnd, value: value as ItemVerdict });
        i = vEnd;
        continue;
      }
    }
    i = end;
  }
  return spans;
}

const bytesOf = (t: TopTokenLogprob): Buffer => (Array.isArray(t.bytes) ? Buffer.from(t.bytes) : Buffer.from(t.token, 'utf8'));

/** The verdict a token continuation begins (`in` → incorrect, `correct"` → correct), or null. */
function verdictBegunBy(rest: string): ItemVerdict | null {
  if (rest === '') return null;
  return ITEM_VERDICTS.find((v) => v.startsWith(rest) || rest.startsWith(v)) ?? null;
}

function distributionAt(first: TokenLogprob, prefix: Buffer): Record<ItemVerdict, number> | undefined {
  const top = first.top_logprobs ?? [];
  if (top.length < 2) return undefined;
  const mass: Record<ItemVerdict, number> = { correct: 0, partial: 0, incorrect: 0, missing: 0 };
  const chosen = bytesOf(first);
  let sawChosen = false;
  const add = (t: TopTokenLogprob) => {
    const b = bytesOf(t);
    if (b.length < prefix.length || !b.subarray(0, prefix.length).equals(prefix)) return;
    const v = verdictBegunBy(b.subarray(prefix.length).toString('utf8'));
    if (v && Number.isFinite(t.logprob)) mass[v] += Math.exp(t.logprob);
  };
  for (const t of top) {
    if (bytesOf(t).equals(chosen)) sawChosen = true;
    add(t);
  }
  // The chosen token is not always among the listed alternatives; its own mass still counts.
  if (!sawChosen) add(first);
  const total = ITEM_VERDICTS.reduce((s, v) => s + mass[v], 0);
  if (!(total > 0)) return undefined;
  return Object.fromEntries(ITEM_VERDICTS.map((v) => [v, mass[v] / total])) as Record<ItemVerdict, number>;
}

/**
 * Confidence of each item verdict in `content` (the reply text), whose parsed rubric items are `items`.
 * Returns `source: 'none'` with the reason whenever the tokens cannot be tied to the verdicts.
 */
export function verdictConfidence(
  content: string,
  items: ReadonlyArray<{ id: string; verdict: string }>,
  tokens: readonly TokenLogprob[] | null | undefined,
): ReplyConfidence {
  if (!tokens || tokens.length === 0) return { source: 'none', reason: 'the provider returned no token log-probabilities' };
  const text = Buffer.from(content, 'utf8');
  const starts: number[] = [];
  let at = 0;
  for (const t of tokens) {
    const b = bytesOf(t);
    if (at + b.length > text.length || !text.subarray(at, at + b.length).equals(b)) {
      return { source: 'none', reason: `the log-probability tokens do not spell the reply (they part from it at byte ${at})` };
    }
    starts.push(at);
    at += b.length;
  }
  if (at !== text.length) return { source: 'none', reason: `the log-probability tokens cover ${at} of the reply's ${text.length} bytes` };

  const spans = verdictSpans(content);
  if (spans.length !== items.length || spans.some((s, k) => s.value !== items[k]!.verdict)) {
    return { source: 'none', reason: `found ${spans.length} item verdicts in the reply text for ${items.length} parsed items` };
  }
  const byteAt = (i: number): number => Buffer.byteLength(content.slice(0, i), 'utf8');
  const out: VerdictProbability[] = spans.map((s, k) => {
    const bs = byteAt(s.start);
    const be = byteAt(s.end);
    let sum = 0;
    let n = 0;
    let first = -1;
    tokens.forEach((t, j) => {
      const ts = starts[j]!;
      const te = ts + bytesOf(t).length;
      if (ts < be && te > bs) {
        if (first < 0) first = j;
        sum += t.logprob;
        n++;
      }
    });
    const row: VerdictProbability = { id: items[k]!.id, verdict: s.value, probability: Math.exp(sum), tokens: n };
    const dist = first >= 0 ? distributionAt(tokens[first]!, text.subarray(starts[first]!, bs)) : undefined;
    if (dist) row.distribution = dist;
    return row;
  });
  return { source: 'logprobs', items: out };
}

/**
 * What a grade keeps of a reply's confidence: item id → probability of the verdict the validated output
 * gives it. Only items whose located verdict is the output's verdict for that id count (the output is the
 * parsed, validated reply; a mismatch would tie a probability to a verdict the judge did not give).
 * Undefined when the reply has no log-probability confidence.
 */
export function keptConfidence(confidence: ReplyConfidence | undefined, items: ReadonlyArray<{ id: string; verdict: string }>): Record<string, number> | undefined {
  if (!confidence || confidence.source !== 'logprobs') return undefined;
  const verdict = new Map(items.map((it) => [it.id, it.verdict]));
  const kept = confidence.items.filter((p) => verdict.get(p.id) === p.verdict && Number.isFinite(p.probability));
  return kept.length > 0 ? Object.fromEntries(kept.map((p) => [p.id, p.probability])) : undefined;
}
