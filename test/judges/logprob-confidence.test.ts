import { describe, expect, it } from 'vitest';
import { type TokenLogprob, verdictConfidence } from '../../src/judges/logprob-confidence.ts';

/** The log-probability method on hand-built token streams (the fake and the SDK come in logprobs.test.ts). */

const tok = (token: string, p: number, top: Array<[string, number]> = []): TokenLogprob => ({
  token,
  logprob: Math.log(p),
  bytes: [...Buffer.from(token, 'utf8')],
  top_logprobs: top.map(([t, q]) => ({ token: t, logprob: Math.log(q), bytes: [...Buffer.from(t, 'utf8')] })),
});

/** Tokens that spell `text`: the given ones where they fit, the rest as certain single tokens. */
function spell(parts: Array<string | TokenLogprob>): { text: string; tokens: TokenLogprob[] } {
  const tokens = parts.map((p) => (typeof p === 'string' ? tok(p, 1) : p));
  return { text: tokens.map((t) => t.token).join(''), tokens };
}

describe('verdictConfidence', () => {
  it('multiplies the probabilities of the verdict’s own tokens, and only those', () => {
    const { text, tokens } = spell([
      '{"items":[{"id":"a","verdict":"',
      tok('in', 0.8),
      tok('correct', 0.9),
      '","evidence":""},{"id":"b","verdict":"',
      tok('correct', 0.6),
      tok('","evidence":""}],"claims":[{"text":"x","verdict":"', 0.5),
      'true"}]}',
    ]);
    const r = verdictConfidence(text, [
      { id: 'a', verdict: 'incorrect' },
      { id: 'b', verdict: 'correct' },
    ], tokens);
    expect(r.source).toBe('logprobs');
    if (r.source !== 'logprobs') return;
    expect(r.items.map((i) => [i.id, i.verdict, i.tokens])).toEqual([
      ['a', 'incorrect', 2],
      ['b', 'correct', 1],
    ]);
    expect(r.items[0]!.probability).toBeCloseTo(0.72, 12);
    expect(r.items[1]!.probability).toBeCloseTo(0.6, 12);
    expect(r.items[0]!.distribution).toBeUndefined();
  });

  it('counts a token that also holds the opening punctuation whole, and reads alternatives after that prefix', () => {
    const { text, tokens } = spell([
      '{"items":[{"id":"a","verdict',
      tok('":"part', 0.5, [
        ['":"part', 0.5],
        ['":"correct', 0.3],
        ['":"miss', 0.1],
        ['": "', 0.05], // leaves the prefix: not a verdict
      ]),
      tok('ial', 0.9),
      '","evidence":""}],"claims":[]}',
    ]);
    const r = verdictConfidence(text, [{ id: 'a', verdict: 'partial' }], tokens);
    if (r.source !== 'logprobs') throw new Error(JSON.stringify(r));
    expect(r.items[0]!.probability).toBeCloseTo(0.45, 12);
    expect(r.items[0]!.tokens).toBe(2);
    const d = r.items[0]!.distribution!;
    expect(d.partial).toBeCloseTo(0.5 / 0.9, 12);
    expect(d.correct).toBeCloseTo(0.3 / 0.9, 12);
    expect(d.missing).toBeCloseTo(0.1 / 0.9, 12);
    expect(d.incorrect).toBe(0);
  });

  it('adds the chosen token when the alternatives list leaves it out', () => {
    const { text, tokens } = spell(['{"items":[{"id":"a","verdict":"', tok('miss', 0.2, [['correct', 0.6], ['part', 0.2]]), tok('ing', 1), '","evidence":""}],"claims":[]}']);
    const r = verdictConfidence(text, [{ id: 'a', verdict: 'missing' }], tokens);
    if (r.source !== 'logprobs') throw new Error(JSON.stringify(r));
    expect(r.items[0]!.distribution).toEqual({ correct: expect.closeTo(0.6, 12), partial: expect.closeTo(0.2, 12), incorrect: 0, missing: expect.closeTo(0.2, 12) });
  });

  it('places tokens by bytes, so a token that splits a character does not shift the verdicts', () => {
    const e = Buffer.from('é', 'utf8');
    const head = '{"items":[{"id":"a","evidence":"caf';
    const tokens: TokenLogprob[] = [
      tok(head, 1),
      { token: '\ufffd', logprob: 0, bytes: [e[0]!] },
      { token: '\ufffd"', logprob: 0, bytes: [e[1]!, 0x22] },
      tok(',"verdict":"', 1),
      tok('correct', 0.7),
      tok('"}],"claims":[]}', 1),
    ];
    const text = `${head}é","verdict":"correct"}],"claims":[]}`;
    const r = verdictConfidence(text, [{ id: 'a', verdict: 'correct' }], tokens);
    if (r.source !== 'logprobs') throw new Error(JSON.stringify(r));
    expect(r.items[0]!.probability).toBeCloseTo(0.7, 12);
  });

  it('claims no confidence when the tokens cannot be tied to the verdicts', () => {
    const text = '{"items":[{"id":"a","verdict":"correct","evidence":""}],"claims":[]}';
    expect(verdictConfidence(text, [{ id: 'a', verdict: 'correct' }], null)).toEqual({ source: 'none', reason: 'the provider returned no token log-probabilities' });
    expect(verdictConfidence(text, [{ id: 'a', verdict: 'correct' }], [tok('{"items"', 1), tok('XX', 1)])).toEqual({
      source: 'none',
      reason: 'the log-probability tokens do not spell the reply (they part from it at byte 8)',
    });
    expect(verdictConfidence(text, [{ id: 'a', verdict: 'correct' }], [tok(text.slice(0, 10), 1)])).toMatchObject({ source: 'none', reason: expect.stringMatching(/cover 10 of the reply's/) });
    expect(verdictConfidence(text, [{ id: 'a', verdict: 'partial' }], [tok(text, 1)])).toEqual({ source: 'none', reason: 'found 1 item verdicts in the reply text for 1 parsed items' });
    expect(verdictConfidence(text, [], [tok(text, 1)]).source).toBe('none');
  });

  it('is not fooled by a verdict-like text inside an evidence string', () => {
    const { text, tokens } = spell(['{"items":[{"id":"a","evidence":"said \\"verdict\\":\\"correct\\"","verdict":"', tok('miss', 0.5), tok('ing', 0.5), '"}],"claims":[]}']);
    const r = verdictConfidence(text, [{ id: 'a', verdict: 'missing' }], tokens);
    if (r.source !== 'logprobs') throw new Error(JSON.stringify(r));
    expect(r.items[0]!.probability).toBeCloseTo(0.25, 12);
  });
});
