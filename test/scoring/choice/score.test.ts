import { describe, expect, it } from 'vitest';
import { parseKey, parseResponses, type KeyRow, type ResponseRow } from '../../../src/scoring/choice/rows.ts';
import { scoreChoices, scoreResponses } from '../../../src/scoring/choice/score.ts';
import { badInputMessage } from '../../helpers/errors.ts';

const key: KeyRow[] = [
  { id: 'q1', answer: 'A', category: 'shapes', domain: 'visual' },
  { id: 'q2', answer: 'B', category: 'shapes', domain: 'visual' },
  { id: 'q3', answer: 'C', category: 'shapes', domain: 'verbal' },
  { id: 'q4', answer: 'D', category: 'count', domain: 'verbal' },
  { id: 'q5', answer: 'a', category: 'count', domain: 'verbal' },
];
const responses: ResponseRow[] = [
  { model: 'm1', id: 'q1', response: 'It is a triangle.\n<answer>A</answer>' }, // correct
  { model: 'm1', id: 'q2', response: 'Answer: C' }, // wrong
  { model: 'm1', id: 'q3', response: 'I cannot tell.' }, // invalid
  { model: 'm1', id: 'q4', response: 'Counting…\nD' }, // correct (lone)
  { model: 'm1', id: 'q5', response: 'The answer is (A).' }, // correct (key answer 'a' is option A)
  { model: 'm2', id: 'q1', response: '<answer>B</answer>' }, // wrong
  { model: 'm2', id: 'q4', response: '<answer>D</answer>' }, // correct; q2, q3, q5 missing
];

describe('scoreChoices, hand-computed', () => {
  const { models } = scoreChoices(key, responses);

  it('m1: 3 of 5 correct, 1 invalid, per category and domain', () => {
    expect(models.m1).toEqual({
      n: 5,
      accuracy: 3 / 5,
      invalidRate: 1 / 5,
      correct: 3,
      invalid: 1,
      missing: 0,
      byCategory: {
        count: { n: 2, accuracy: 1, invalidRate: 0 },
        shapes: { n: 3, accuracy: 1 / 3, invalidRate: 1 / 3 },
      },
      byDomain: {
        verbal: { n: 3, accuracy: 2 / 3, invalidRate: 1 / 3 },
        visual: { n: 2, accuracy: 1 / 2, invalidRate: 0 },
      },
      unweightedCategoryMean: (1 + 1 / 3) / 2,
    });
  });

  it('m2: unanswered key items count in n, as invalid, and as missing', () => {
    expect(models.m2).toMatchObject({ n: 5, accuracy: 1 / 5, invalidRate: 3 / 5, correct: 1, invalid: 3, missing: 3 });
    expect(models.m2!.byCategory).toEqual({
      count: { n: 2, accuracy: 1 / 2, invalidRate: 1 / 2 },
      shapes: { n: 3, accuracy: 0, invalidRate: 2 / 3 },
    });
    expect(models.m2!.unweightedCategoryMean).toBe(0.25);
  });

  it('the unweighted category mean differs from accuracy when categories differ in size', () => {
    expect(models.m1!.unweightedCategoryMean).toBeCloseTo(0.6667, 4);
    expect(models.m1!.accuracy).toBe(0.6);
  });

  it('without categories: empty byCategory, mean null with a reason', () => {
    const plain = key.map(({ id, answer }) => ({ id, answer }));
    const m = scoreChoices(plain, responses).models.m1!;
    expect(m.byCategory).toEqual({});
    expect(m.byDomain).toEqual({});
    expect(m.unweightedCategoryMean).toBeNull();
    expect(m.reason).toBe('no key row has a category');
  });

  it('rows without a category go to "(none)" when others have one', () => {
    const mixed = key.map((k, i) => (i === 4 ? { id: k.id, answer: k.answer } : k));
    expect(Object.keys(scoreChoices(mixed, responses).models.m1!.byCategory)).toEqual(['(none)', 'count', 'shapes']);
  });

  it('a null response (failed call) is invalid', () => {
    const r = scoreResponses(key, [{ model: 'm', id: 'q1', response: null }]);
    expect(r[0]!.extraction).toEqual({ choice: null, status: 'invalid', reason: 'no response' });
  });

  it('per-item options override the key-wide set', () => {
    const k: KeyRow[] = [{ id: 'x', answer: 'yes', options: ['yes', 'no'] }, { id: 'y', answer: 'B' }];
    const r = scoreChoices(k, [
      { model: 'm', id: 'x', response: 'Final answer: Yes' },
      { model: 'm', id: 'y', response: 'Answer: B' },
    ]);
    expect(r.models.m!.accuracy).toBe(1);
  });
});

describe('choice input checks name the file and line', () => {
  it('a response for an id not in the key', () => {
    const rs = parseResponses('{"id":"q1","model":"m","response":"A"}\n\n{"id":"q9","model":"m","response":"A"}\n', 'a.jsonl');
    expect(badInputMessage(() => scoreChoices(key, rs, { responsesName: 'a.jsonl' }))).toBe("a.jsonl: line 3: id 'q9' is not in the key");
  });

  it('a duplicate (model, id)', () => {
    const rs = parseResponses('{"id":"q1","model":"m","response":"A"}\n{"id":"q1","model":"m","response":"B"}', 'a.jsonl');
    expect(badInputMessage(() => scoreChoices(key, rs, { responsesName: 'a.jsonl' }))).toBe(
      "a.jsonl: line 2: duplicate response for model 'm', id 'q1' (first on line 1)",
    );
  });

  it('a key row without an answer, a duplicate key id, bad JSON', () => {
    expect(badInputMessage(() => parseKey('{"id":"q1","answer":"A"}\n{"id":"q2"}', 'k.jsonl'))).toBe(
      `k.jsonl: line 2: key row 'q2' has no "answer"`,
    );
    expect(badInputMessage(() => parseKey('{"id":"q1","answer":"A"}\n{"id":"q1","answer":"B"}', 'k.jsonl'))).toBe(
      "k.jsonl: line 2: duplicate key id 'q1' (first on line 1)",
    );
    expect(badInputMessage(() => parseKey('{"id":"q1","answer":"A"}\n{oops', 'k.jsonl'))).toMatch(/^k\.jsonl: line 2: not valid JSON/);
    expect(badInputMessage(() => parseKey('\n\n', 'k.jsonl'))).toBe('k.jsonl: empty (no JSON lines)');
    expect(badInputMessage(() => scoreChoices([{ id: 'q', answer: '' }], []))).toMatch(/has no "answer"/);
  });

  it('zero-padded option numbers name the option: key "01" is option 1, and so are responses "1" and "01"', () => {
    // Before: the key answer "01" was no option of 1–5, so "Answer: 1" scored wrong and "<answer>02</answer>" invalid.
    const k = parseKey('{"id":"q1","answer":"01"}\n{"id":"q2","answer":"02"}\n{"id":"q3","answer":"3"}', 'k');
    const r = parseResponses(
      ['{"id":"q1","model":"m","response":"Answer: 1"}', '{"id":"q2","model":"m","response":"<answer>02</answer>"}', '{"id":"q3","model":"m","response":"03"}'].join('\n'),
      'a',
    );
    const scored = scoreResponses(k, r);
    expect(scored.map((s) => [s.expected, s.extraction.choice, s.correct])).toEqual([['1', '1', true], ['2', '2', true], ['3', '3', true]]);
    expect(scoreChoices(k, r).models.m).toMatchObject({ n: 3, correct: 3, invalid: 0 });
    // Per-item options written with zeros keep their spelling; "2" still names "02".
    const own = parseKey('{"id":"x","answer":"02","options":["01","02","03"]}', 'k');
    expect(scoreResponses(own, [{ model: 'm', id: 'x', response: 'Answer: 2' }])[0]).toMatchObject({ expected: '02', correct: true });
    expect(badInputMessage(() => parseKey('{"id":"x","answer":"1","options":["1","01","2"]}', 'k.jsonl'))).toBe(
      "k.jsonl: line 1: option '01' is listed twice (as '1')",
    );
  });

  it('a key answer written "(B)" or "C." is that option; an answer or option no response can name is bad input', () => {
    // Before: "(B)" and "C." were taken as options of their own, which no response can name (extraction reads B
    // out of "(B)"), and a two-word option could never be read either: those items scored wrong for every model.
    const k = parseKey('{"id":"q1","answer":"(B)"}\n{"id":"q2","answer":"C."}\n{"id":"q3","answer":"[d]"}', 'k');
    expect(k.map((r) => r.answer)).toEqual(['B', 'C', 'd']);
    const r = parseResponses('{"id":"q1","model":"m","response":"<answer>(B)</answer>"}\n{"id":"q2","model":"m","response":"Answer: C."}\n{"id":"q3","model":"m","response":"D"}', 'a');
    expect(scoreChoices(k, r).models.m).toMatchObject({ n: 3, correct: 3, invalid: 0 });
    expect(badInputMessage(() => parseKey('{"id":"q1","answer":"A"}\n{"id":"q2","answer":"not sure"}', 'k.jsonl'))).toBe(
      "k.jsonl: line 2: answer 'not sure' is not one option (a letter, number or word): no response could name it",
    );
    expect(badInputMessage(() => parseKey('{"id":"q1","answer":"no","options":["not sure","no"]}', 'k.jsonl'))).toBe(
      "k.jsonl: line 1: option 'not sure' is not one option (a letter, number or word): no response could name it",
    );
  });

  it('numeric ids and answers are compared as strings', () => {
    const k = parseKey('{"id":1,"answer":2}\n{"id":2,"answer":4}', 'k');
    const r = parseResponses('{"id":1,"model":"m","response":"Answer: 2"}\n{"id":"2","model":"m","response":"4"}', 'a');
    expect(scoreChoices(k, r).models.m).toMatchObject({ n: 2, accuracy: 1 });
  });
});
