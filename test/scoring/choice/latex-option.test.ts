import { describe, expect, it } from 'vitest';
import { extractChoice } from '../../../src/scoring/choice/extract.ts';

/**
 * Models trained on mathematics write their choice in LaTeX: `$\boxed{\text{B}}$`, `\boxed{\textbf{D}}`,
 * `Answer: $C$`. The letter inside is the choice, as `\boxed{B}` already is. Before, the wrapping hid it
 * and a clear answer counted invalid (so wrong).
 */
describe('extractChoice: an option wrapped in LaTeX', () => {
  it.each([
    ['The final answer is $\\boxed{\\text{B}}$', 'B'],
    ['\\boxed{\\text{(C)}}', 'C'],
    ['\\boxed{\\textbf{D}}', 'D'],
    ['$$\\boxed{\\mathrm{A}}$$', 'A'],
    ['Answer: $\\text{C}$', 'C'],
    ['Answer: $C$', 'C'],
    ['<answer>$\\text{E}$</answer>', 'E'],
  ])('%j → %s', (response, choice) => {
    expect(extractChoice(response)).toMatchObject({ choice, status: 'ok' });
  });

  it.each([
    ['\\boxed{\\text{A}} or \\boxed{\\text{B}}', 'conflicting explicit answers: A, B'],
    ['Answer: $\\text{A cat}$', 'no answer found'],
  ])('%j stays invalid', (response, reason) => {
    expect(extractChoice(response)).toEqual({ choice: null, status: 'invalid', reason });
  });
});

describe('extractChoice: LaTeX unwrapping stays linear', () => {
  it.each([
    ['a run of dollars', '$'.repeat(200_000)],
    ['unclosed \\text{', '\\text{'.repeat(50_000)],
    ['dollars and tokens', '$ ab.'.repeat(50_000)],
  ])('%s of ~200,000 characters reads in well under a second', (_name, response) => {
    const t = performance.now();
    expect(extractChoice(response).status).toBe('invalid');
    expect(performance.now() - t).toBeLessThan(1000);
  });
});
