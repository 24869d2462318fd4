import { describe, expect, it } from 'vitest';
import { extractChoice } from '../../../src/scoring/choice/extract.ts';

/**
 * A statement naming two options is no choice (design §2.3: conflicting → invalid): "Answer: A, C",
 * "Answer: A & C" and "Answer: A or C" were invalid, but "Answer: A; C" and "Answer: A+C" were read as A
 * and scored correct on a key of A (exit 0), though a tag "<answer>A; C</answer>" was already refused.
 */

describe('two options joined by ; or + in a statement', () => {
  it.each(['Answer: A; C', 'Answer: A+C', 'Answer: A + C', 'The final answer is (A); (C)'])('%j is invalid', (text) => {
    const r = extractChoice(text);
    expect(r.status).toBe('invalid');
    expect(r.choice).toBeNull();
    expect(r.reason).toMatch(/A, C/);
  });

  it('a tag of A+C was and stays invalid', () => {
    expect(extractChoice('<answer>A+C</answer>').status).toBe('invalid');
  });

  it.each([
    ['Answer: A; C is a distractor', 'A'],
    ['Answer: A; confidence high', 'A'],
    ['Answer: B;', 'B'],
    ['Answer: B; that is all.', 'B'],
  ])('%j still reads as %s', (text, choice) => {
    expect(extractChoice(text)).toMatchObject({ status: 'ok', choice });
  });
});
