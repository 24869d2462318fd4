import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractChoice } from '../../../src/scoring/choice/extract.ts';
import { optionsFromAnswers } from '../../../src/scoring/choice/options.ts';

describe('extractChoice: tags come first', () => {
  it.each([
    ['<answer>B</answer>', 'B'],
    ['Reasoning… <answer> (c) </answer>', 'C'],
    ['<ANSWER>**D**</ANSWER>', 'D'],
    ['<answer>B) 42</answer>', 'B'],
    ['The answer is A.\n<answer>E</answer>', 'E'],
    ['<answer>B</answer> and again <answer>b</answer>', 'B'],
  ])('%j → %s', (response, choice) => {
    expect(extractChoice(response)).toEqual({ choice, status: 'ok', source: 'tag' });
  });

  it('an unclosed tag is not a tag: the later rules apply', () => {
    expect(extractChoice('<answer>B\nAnswer: B')).toEqual({ choice: 'B', status: 'ok', source: 'explicit' });
    expect(extractChoice(`${'<answer>'.repeat(5000)}\nC`)).toEqual({ choice: 'C', status: 'ok', source: 'lone' });
  });

  it('conflicting tags are invalid', () => {
    expect(extractChoice('<answer>B</answer> wait <answer>C</answer>')).toEqual({
      choice: null,
      status: 'invalid',
      reason: 'conflicting <answer> tags: B, C',
    });
  });

  it('a tag holding no option is invalid, even with an explicit line elsewhere', () => {
    const r = extractChoice('<answer>the cat</answer>\nAnswer: B');
    expect(r).toMatchObject({ choice: null, status: 'invalid' });
    expect(r.reason).toMatch(/not one of the options/);
    expect(extractChoice('<answer></answer>').status).toBe('invalid');
    expect(extractChoice('<answer>F</answer>').status).toBe('invalid');
  });
});

describe('extractChoice: explicit statements', () => {
  it.each([
    ['Answer: C', 'C'],
    ['answer: c', 'C'],
    ['The answer is (B).', 'B'],
    ['The answer is B because the pattern repeats.', 'B'],
    ['**Final answer:** (C).', 'C'],
    ['Final answer D', 'D'],
    ['The correct answer is option E', 'E'],
    ['The correct option is [A]', 'A'],
    ['My answer = d', 'D'],
    ['Answer:\n\n**B**', 'B'],
    ['The answer would be C.', 'C'],
    ['So \\boxed{B}', 'B'],
    ['I considered A, but the answer is A.\nMore text follows here.', 'A'],
  ])('%j → %s', (response, choice) => {
    expect(extractChoice(response)).toEqual({ choice, status: 'ok', source: 'explicit' });
  });

  it('disagreeing statements are invalid', () => {
    expect(extractChoice('The answer is A. Hmm, the answer is B.')).toEqual({
      choice: null,
      status: 'invalid',
      reason: 'conflicting explicit answers: A, B',
    });
  });

  it('"final" statements overrule earlier plain ones', () => {
    expect(extractChoice('The answer is A? No.\nFinal answer: C')).toEqual({ choice: 'C', status: 'ok', source: 'explicit' });
    expect(extractChoice('Final answer: A. Final answer: C').status).toBe('invalid');
  });

  it('does not read prose or non-options as an answer', () => {
    expect(extractChoice('The answer is a cat.')).toMatchObject({ status: 'invalid', reason: 'no answer found' });
    expect(extractChoice('The answer is 42')).toMatchObject({ status: 'invalid' });
    expect(extractChoice('Option A is wrong and option B is unlikely.')).toMatchObject({ status: 'invalid' });
    expect(extractChoice('Answer with a single letter.')).toMatchObject({ status: 'invalid' });
    expect(extractChoice('Final answer\nA quick check shows nothing.')).toMatchObject({ status: 'invalid' });
  });
});

describe('extractChoice: an answer naming two options is no choice', () => {
  // Before: each of these read as its first option, and a hedge between A and B scored as a confident A.
  it.each([
    ['Answer: A or B', 'A, B'],
    ['The answer is C or D.', 'C, D'],
    ['Answer: A, B', 'A, B'],
    ['Answer: A and B', 'A, B'],
    ['The answer is (A) and (B).', 'A, B'],
    ['Final answer: B/D', null],
    ['The answer is B or option E because both fit', 'B, E'],
  ])('%j is invalid', (response, both) => {
    const r = extractChoice(response);
    expect(r).toMatchObject({ choice: null, status: 'invalid' });
    if (both) expect(r.reason).toBe(`conflicting explicit answers: ${both}`);
  });
  it.each([
    ['<answer>A, B</answer>', 'A, B'],
    ['<answer>A B</answer>', 'A, B'],
    ['<answer>(A) or (B)</answer>', 'A, B'],
    ['<answer>A and C</answer>', 'A, C'],
  ])('tag %j is invalid', (response, both) => {
    expect(extractChoice(response)).toEqual({ choice: null, status: 'invalid', reason: `<answer> tag names more than one option: ${both}` });
  });
  it.each([
    ['The answer is B, not A.', 'B'],
    ['The answer is C and D is a distractor.', 'C'],
    ['Answer: A, because the square is on top', 'A'],
    ['The answer is B and a half turn confirms it', 'B'],
    ['Answer: A or (A)', 'A'],
    ['The answer is A or B... final answer: B', 'B'],
  ])('%j still reads as %s', (response, choice) => {
    expect(extractChoice(response)).toMatchObject({ choice, status: 'ok' });
  });
  it.each([
    ['<answer>B) 42</answer>', 'B'],
    ['<answer>C (the third one)</answer>', 'C'],
    ['<answer>B. A square sits on top</answer>', 'B'],
  ])('tag %j still reads as %s', (response, choice) => {
    expect(extractChoice(response)).toEqual({ choice, status: 'ok', source: 'tag' });
  });
});

describe('extractChoice: a lone option on the last line', () => {
  it.each([
    ['Let me think.\n\nB', 'B'],
    ['Let me think.\n(d)\n\n  ', 'D'],
    ['Reasoning about option A and option C.\n**C.**', 'C'],
    ['Reasoning.\nOption E', 'E'],
  ])('%j → %s', (response, choice) => {
    expect(extractChoice(response)).toEqual({ choice, status: 'ok', source: 'lone' });
  });

  it('a letter inside a sentence on the last line is not lone', () => {
    expect(extractChoice('I am torn.\nProbably B or C')).toMatchObject({ status: 'invalid' });
  });

  it('absent or empty is invalid', () => {
    expect(extractChoice('I cannot tell from the image.')).toEqual({ choice: null, status: 'invalid', reason: 'no answer found' });
    expect(extractChoice('   \n  ')).toEqual({ choice: null, status: 'invalid', reason: 'empty response' });
  });
});

describe('extractChoice with other options', () => {
  it('reads numbered options and letters beyond E', () => {
    const nums = optionsFromAnswers(['1', '3', '4']);
    expect(nums).toEqual(['1', '2', '3', '4', '5']);
    expect(extractChoice('Answer: 3', nums)).toMatchObject({ choice: '3', status: 'ok' });
    expect(extractChoice('Answer: C', nums)).toMatchObject({ status: 'invalid' });
    const letters = optionsFromAnswers(['A', 'h']);
    expect(letters).toHaveLength(8);
    expect(extractChoice('<answer>H</answer>', letters)).toMatchObject({ choice: 'H' });
  });

  it('word options (yes/no) match case-insensitively and return the option as written', () => {
    const yn = optionsFromAnswers(['Yes', 'No', 'yes']);
    expect(yn).toEqual(['Yes', 'No']);
    expect(extractChoice('Final answer: NO', yn)).toMatchObject({ choice: 'No', status: 'ok' });
    expect(extractChoice('yes', yn)).toMatchObject({ choice: 'Yes', source: 'lone' });
  });
});

describe('extractChoice properties', () => {
  it('never throws; ok ⇒ an option and a source; invalid ⇒ a reason and no choice', () => {
    const bits = fc.constantFrom('<answer>', '</answer>', 'Answer:', 'final answer', 'is', '(', ')', 'A', 'b', 'C', '\n', '**', ' ', '\\boxed{', '}', '.');
    const text = fc.oneof(fc.string({ maxLength: 200 }), fc.array(fc.oneof(bits, fc.string({ maxLength: 4 })), { maxLength: 40 }).map((a) => a.join('')));
    fc.assert(
      fc.property(text, (t) => {
        const r = extractChoice(t);
        if (r.status === 'ok') {
          expect(['A', 'B', 'C', 'D', 'E']).toContain(r.choice);
          expect(r.source).toBeDefined();
        } else {
          expect(r.choice).toBeNull();
          expect(r.reason).toBeTruthy();
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('a tagged option is always found, whatever reasoning precedes it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.constantFrom('A', 'B', 'C', 'D', 'E'), (prefix, o) => {
        fc.pre(!/<answer/i.test(prefix));
        expect(extractChoice(`${prefix}\n<answer>${o}</answer>`)).toMatchObject({ choice: o, status: 'ok', source: 'tag' });
      }),
    );
  });
});
