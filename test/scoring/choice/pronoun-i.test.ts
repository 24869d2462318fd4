import { describe, expect, it } from 'vitest';
import { extractChoice } from '../../../src/scoring/choice/extract.ts';

/**
 * On a key with nine or more options (A–I and up), "I" is an option and a pronoun. "Answer: I'm not
 * sure, maybe C" or "Final answer: I think C" is prose, not a choice of I — as a lowercase "a" followed by
 * more words is ("the answer is a cat"). Before, these read as a confident I.
 */
const TEN = 'ABCDEFGHIJ'.split('');

describe('extractChoice: the pronoun I is not option I', () => {
  it.each([
    ["Answer: I'm not sure, maybe C"],
    ['Final answer: I think C'],
    ['The answer is I believe D'],
    ['My answer: I would say B'],
    ['Answer: I’d go with B'],
    ['<answer>I think C</answer>'],
  ])('%j is not I', (response) => {
    const r = extractChoice(response, TEN);
    expect(r.choice).not.toBe('I');
    expect(r.status).toBe('invalid');
  });

  it.each([
    ['Answer: I', 'I'],
    ['The answer is I.', 'I'],
    ['The answer is (I) because the ring is closed', 'I'],
    ['Answer: I, because the ring is closed', 'I'],
    ['<answer>I</answer>', 'I'],
    ['Final answer: I think it is C. Final answer: C', 'C'],
  ])('%j still reads as %s', (response, choice) => {
    expect(extractChoice(response, TEN)).toMatchObject({ choice, status: 'ok' });
  });
});
