import { describe, expect, it } from 'vitest';
import { parseKey, scoreChoices, scoreResponses } from '../../../src/scoring/choice/index.ts';

/**
 * A key that mixes lettered questions with counting questions (whole-number answers). Each kind keeps its
 * own options (docs/choice-scoring.md: single letters → A up to the highest, at least E; whole numbers →
 * 1 up to the highest, at least 5). Before, a mixed key fell to "the distinct answers" (A, C, 3, 2):
 * a wrong B or 4 was unreadable (counted invalid), and "B… no wait, C" scored as a confident C.
 */
const key = parseKey(
  ['{"id":"q1","answer":"A"}', '{"id":"q2","answer":"C"}', '{"id":"n1","answer":3}', '{"id":"n2","answer":"2"}'].join('\n'),
  'k.jsonl',
);

describe('a key of letters and numbers', () => {
  it('lettered questions read A–E, counting questions 1–5', () => {
    const r = scoreResponses(key, [
      { model: 'm', id: 'q1', response: 'Answer: B' },
      { model: 'm', id: 'n1', response: 'Answer: 4' },
    ]);
    expect(r.map((x) => [x.extraction.choice, x.extraction.status, x.correct])).toEqual([
      ['B', 'ok', false],
      ['4', 'ok', false],
    ]);
  });

  it('a change of mind between two letters is conflicting', () => {
    const [r] = scoreResponses(key, [{ model: 'm', id: 'q2', response: 'The answer is B. No wait, the answer is C.' }]);
    expect(r!.extraction).toEqual({ choice: null, status: 'invalid', reason: 'conflicting explicit answers: B, C' });
  });

  it('a letter is no option of a counting question, nor a number of a lettered one', () => {
    const r = scoreResponses(key, [
      { model: 'm', id: 'q1', response: 'Answer: 3' },
      { model: 'm', id: 'n1', response: 'Answer: A' },
    ]);
    expect(r.map((x) => x.extraction.status)).toEqual(['invalid', 'invalid']);
  });

  it('scores: wrong answers are wrong, not invalid', () => {
    const s = scoreChoices(key, [
      { model: 'm', id: 'q1', response: 'Answer: A' },
      { model: 'm', id: 'q2', response: 'Answer: D' },
      { model: 'm', id: 'n1', response: 'Answer: 3' },
      { model: 'm', id: 'n2', response: 'Answer: 5' },
    ]).models.m!;
    expect([s.correct, s.invalid, s.accuracy, s.invalidRate]).toEqual([2, 0, 0.5, 0]);
  });
});
