import { describe, expect, it } from 'vitest';
import { extractChoice } from '../../../src/scoring/choice/extract.ts';

/**
 * On a yes/no key, "no" before a noun is a determiner ("no idea", "no doubt", "no clear answer"), not the
 * option no — as a lowercase "a" before more words is prose. Before, "Answer: no idea" read as a confident
 * no, and "yes, no doubt about it" as a hedge between yes and no.
 */
const YES_NO = ['yes', 'no'];

describe('extractChoice: "no" before a noun is not the option no', () => {
  it.each([
    ['Answer: no idea'],
    ['The answer is no clear match between the pieces'],
    ['Final answer: No single option fits'],
    ['<answer>no idea</answer>'],
    ['The answer is no doubt yes'],
  ])('%j is invalid', (response) => {
    expect(extractChoice(response, YES_NO)).toMatchObject({ choice: null, status: 'invalid' });
  });

  it.each([
    ['The answer is yes, no doubt about it', 'yes'],
  ])('%j reads as %s', (response, choice) => {
    expect(extractChoice(response, YES_NO)).toMatchObject({ choice, status: 'ok' });
  });

  it.each([
    ['Answer: no', 'no'],
    ['The answer is no, the piece is not rotated', 'no'],
    ['Answer: no because the piece is upright', 'no'],
    ['Answer: No.', 'no'],
    ['Answer: yes or no', null],
  ])('%j still reads as %s', (response, choice) => {
    expect(extractChoice(response, YES_NO).choice).toBe(choice);
  });
});
