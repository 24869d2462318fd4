import { describe, expect, it } from 'vitest';
import { extractChoice } from '../../../src/scoring/choice/extract.ts';
import { scoreChoices } from '../../../src/scoring/choice/score.ts';

/**
 * Forms of "two options" that read as a confident single choice before (docs/choice-scoring.md: a
 * statement or tag naming two options is a hedge, invalid): "B and/or C"; "B or C" with a no-break or
 * thin space (as rendered markdown and many chat front ends write it); "(B)(C)" and "B; C" inside a tag.
 * And options written in full-width letters or digits ("Ｂ", "：", as CJK keyboards type them), which
 * read as no answer at all: they are the ASCII option under Unicode NFKC.
 */
const hedge = (both: string) => ({ choice: null, status: 'invalid', reason: `conflicting explicit answers: ${both}` });
const tagHedge = (both: string) => ({ choice: null, status: 'invalid', reason: `<answer> tag names more than one option: ${both}` });

describe('extractChoice: more ways of naming two options', () => {
  it.each([
    ['Answer: B and/or C', 'B, C'],
    ['The answer is B\u00a0or C', 'B, C'],
    ['Answer: B or\u00a0C', 'B, C'],
    ['Final answer: A\u202for D', 'A, D'],
    ['Answer: (B) (C)', 'B, C'],
    ['Answer: (B)(C)', 'B, C'],
  ])('%j is invalid', (response, both) => {
    expect(extractChoice(response)).toEqual(hedge(both));
  });

  it.each([
    ['<answer>B; C</answer>', 'B, C'],
    ['<answer>(B)(C)</answer>', 'B, C'],
    ['<answer>(B) (C)</answer>', 'B, C'],
    ['<answer>B and/or C</answer>', 'B, C'],
    ['<answer>B\u00a0or C</answer>', 'B, C'],
  ])('tag %j is invalid', (response, both) => {
    expect(extractChoice(response)).toEqual(tagHedge(both));
  });

  it('a lowercase letter starting prose in a tag is no option (as in a statement)', () => {
    expect(extractChoice('<answer>a cat</answer>')).toMatchObject({ choice: null, status: 'invalid' });
    expect(extractChoice('the answer is a cat')).toMatchObject({ choice: null, status: 'invalid' });
  });

  it.each([
    ['<answer>B) 42</answer>', 'B'],
    ['<answer>A) 3 triangles</answer>', 'A'],
    ['<answer>a) cat</answer>', 'A'],
    ['<answer>b</answer>', 'B'],
    ['<answer>C (B is a distractor)</answer>', 'C'],
    ['<answer>(C) (see above)</answer>', 'C'],
    ['Answer: B; C is wrong', 'B'],
    ['Answer: (B) (C is wrong)', 'B'],
    ['The answer is (B) (a close call)', 'B'],
    ['Answer:\u00a0B', 'B'],
  ])('%j still reads as %s', (response, choice) => {
    expect(extractChoice(response)).toMatchObject({ choice, status: 'ok' });
  });
});

describe('extractChoice: full-width options', () => {
  it.each([
    ['Answer: Ｂ', 'B', 'explicit'],
    ['ＡＮＳＷＥＲ：Ｄ', 'D', 'explicit'],
    ['The answer is （Ｃ）.', 'C', 'explicit'],
    ['<answer>Ｅ</answer>', 'E', 'tag'],
    ['Reasoning…\nＡ', 'A', 'lone'],
  ])('%j reads as %s', (response, choice, source) => {
    expect(extractChoice(response)).toEqual({ choice, status: 'ok', source });
  });

  it('a full-width number names the option of a counting question', () => {
    expect(extractChoice('Answer: ３', ['1', '2', '3', '4', '5'])).toEqual({ choice: '3', status: 'ok', source: 'explicit' });
  });

  it('scores right on the key, not invalid', () => {
    const s = scoreChoices([{ id: 'q1', answer: 'B' }], [{ id: 'q1', model: 'm', response: '答案 / Answer: Ｂ' }]);
    expect(s.models.m).toMatchObject({ accuracy: 1, invalidRate: 0 });
  });
});

describe('extractChoice: only full-width forms and spaces are narrowed', () => {
  it.each([
    ['The answer is C¹', 'C'],
    ['Answer: B²', 'B'],
  ])('%j still reads as %s (a superscript is not a digit of the option)', (response, choice) => {
    expect(extractChoice(response)).toMatchObject({ choice, status: 'ok' });
  });
});

describe('extractChoice: the hedge and delimiter patterns stay linear', () => {
  it.each([
    ['spaces after a bracketed option', `Answer: (B)${' '.repeat(100_000)}x`],
    ['tabs between bracketed options', `Answer: (B)${'\t'.repeat(100_000)}(C)`],
    ['closing brackets in a tag', `<answer>B${')'.repeat(100_000)} C</answer>`],
    ['semicolons in a tag', `<answer>B${';'.repeat(100_000)}</answer>`],
    ['unclosed \\( delimiters', `${'\\( '.repeat(60_000)}B`],
    ['full-width text', 'Ｂ　'.repeat(100_000)],
  ])('%s (~100,000 characters) reads in well under a second', (_name, response) => {
    const t = performance.now();
    extractChoice(response);
    expect(performance.now() - t).toBeLessThan(1000);
  });
});
