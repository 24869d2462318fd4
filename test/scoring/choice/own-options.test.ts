import { describe, expect, it } from 'vitest';
import { parseKey, scoreChoices, scoreResponses } from '../../../src/scoring/choice/index.ts';

/**
 * A key row with its own "options" (a yes/no question in a lettered key) sets that question's options
 * only. Before, its answer also went into the key-wide set: {A, C, yes} is not all letters, so the
 * lettered questions' options became the distinct answers A, C, yes — a response naming B, D or E was
 * unreadable (a wrong answer counted invalid), and "B, no wait, the answer is C" lost its B and scored
 * as a confident C.
 */
const key = parseKey(
  ['{"id":"q1","answer":"A"}', '{"id":"q2","answer":"C"}', '{"id":"q3","answer":"yes","options":["yes","no"]}'].join('\n'),
  'k.jsonl',
);

describe('per-row options leave the key-wide options alone', () => {
  it('a lettered question still reads every letter A–E', () => {
    const [r] = scoreResponses(key, [{ model: 'm', id: 'q1', response: 'Answer: B' }]);
    expect(r!.extraction).toEqual({ choice: 'B', status: 'ok', source: 'explicit' });
    expect(r!.correct).toBe(false);
  });

  it('a change of mind between two letters is conflicting, not the second letter', () => {
    const [r] = scoreResponses(key, [{ model: 'm', id: 'q2', response: 'The answer is B. No wait, the answer is C.' }]);
    expect(r!.extraction).toEqual({ choice: null, status: 'invalid', reason: 'conflicting explicit answers: B, C' });
    expect(r!.correct).toBe(false);
  });

  it('wrong is wrong, not invalid, in the scores', () => {
    const s = scoreChoices(key, [
      { model: 'm', id: 'q1', response: 'Answer: D' },
      { model: 'm', id: 'q2', response: 'Answer: C' },
      { model: 'm', id: 'q3', response: 'Answer: no' },
    ]).models.m!;
    expect([s.correct, s.invalid, s.accuracy, s.invalidRate]).toEqual([1, 0, 1 / 3, 0]);
  });
});
