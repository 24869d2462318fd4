import { describe, expect, it } from 'vitest';
import { extractChoice } from '../../../src/scoring/choice/extract.ts';

/**
 * An option in quotes — `Answer: "B"`, `The answer is 'C'.`, `<answer>"D"</answer>`, a last line `“A”` —
 * names that option as brackets do. Before, the quotes hid it: a clear answer counted invalid (and so
 * wrong), lowering accuracy and raising the invalid rate.
 */
describe('extractChoice: a quoted option', () => {
  it.each([
    ['Answer: "B"', 'B', 'explicit'],
    ["The answer is 'C'.", 'C', 'explicit'],
    ['Final answer: “D”', 'D', 'explicit'],
    ['<answer>"B"</answer>', 'B', 'tag'],
    ['Reasoning.\n“A”', 'A', 'lone'],
  ])('%j → %s', (response, choice, source) => {
    expect(extractChoice(response)).toEqual({ choice, status: 'ok', source });
  });

  it.each([
    ['Answer: "B" or "C"', 'conflicting explicit answers: B, C'],
    ['Answer: "A cat sits on the mat"', 'no answer found'],
    ["Answer: 'a' cat", 'no answer found'],
  ])('%j stays invalid', (response, reason) => {
    expect(extractChoice(response)).toEqual({ choice: null, status: 'invalid', reason });
  });
});
