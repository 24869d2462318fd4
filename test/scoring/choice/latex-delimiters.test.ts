import { describe, expect, it } from 'vitest';
import { extractChoice } from '../../../src/scoring/choice/extract.ts';

/**
 * LaTeX's other inline and display math delimiters, \( … \) and \[ … \] (the default of many chat models),
 * wrap an option as $…$ does (docs/choice-scoring.md: LaTeX wrapping is read through). Before,
 * "The answer is \(\text{B}\)." read as no answer found: invalid, and so wrong, for a plain B.
 */
describe('extractChoice: an option inside \\( \\) or \\[ \\]', () => {
  it.each([
    ['The answer is \\(\\text{B}\\).', 'B', 'explicit'],
    ['**Answer:** \\( C \\)', 'C', 'explicit'],
    ['Final answer: \\(\\mathbf{A}\\)', 'A', 'explicit'],
    ['Answer: \\[ D \\]', 'D', 'explicit'],
    ['Answer: \\((B)\\)', 'B', 'explicit'],
    ['So:\n\\(E\\)', 'E', 'lone'],
  ])('%j reads as %s', (response, choice, source) => {
    expect(extractChoice(response)).toEqual({ choice, status: 'ok', source });
  });

  it('two options in one are still a hedge', () => {
    expect(extractChoice('The answer is \\(B\\) or \\(C\\)')).toEqual({ choice: null, status: 'invalid', reason: 'conflicting explicit answers: B, C' });
  });

  it('an expression in the delimiters is not an option', () => {
    expect(extractChoice('Answer: \\( x + 2 \\)')).toMatchObject({ choice: null, status: 'invalid' });
  });
});
