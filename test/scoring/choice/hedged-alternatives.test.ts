import { describe, expect, it } from 'vitest';
import { extractChoice } from '../../../src/scoring/choice/extract.ts';

/**
 * A second option offered as an alternative — "C or possibly D", "C, or perhaps D", "C (or D)" — is the
 * same hedge as "C or D" (docs/choice-scoring.md: a statement naming two options is no choice). Before,
 * a word between "or" and the option, a comma before "or", or a bracket round the alternative hid the
 * second option, and the hedge scored as a confident C.
 */
describe('extractChoice: an alternative offered beside the answer is a hedge', () => {
  it.each([
    ['The answer is C or possibly D', 'C, D'],
    ['The answer is C, or perhaps D.', 'C, D'],
    ['Answer: A or maybe B', 'A, B'],
    ['Answer: C (or D)', 'C, D'],
    ['The answer is A (or possibly B).', 'A, B'],
    ['Final answer: B, or probably option E', 'B, E'],
  ])('%j is invalid', (response, both) => {
    expect(extractChoice(response)).toEqual({ choice: null, status: 'invalid', reason: `conflicting explicit answers: ${both}` });
  });

  it.each([
    ['<answer>C or maybe D</answer>', 'C, D'],
    ['<answer>C (or D)</answer>', 'C, D'],
  ])('tag %j is invalid', (response, both) => {
    expect(extractChoice(response)).toEqual({ choice: null, status: 'invalid', reason: `<answer> tag names more than one option: ${both}` });
  });

  it.each([
    ['The answer is C, or perhaps D is a trap', 'C'],
    ['Answer: B (A is wrong)', 'B'],
    ['Correct answer: B (not A)', 'B'],
    ['The answer is A, not B', 'A'],
    ['Answer: A, but B is close', 'A'],
    ['The answer is B (or a close variant of it)', 'B'],
    ['Answer: C (or option C, the same)', 'C'],
  ])('%j still reads as %s', (response, choice) => {
    expect(extractChoice(response)).toMatchObject({ choice, status: 'ok' });
  });
});
