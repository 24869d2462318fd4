import { describe, expect, it } from 'vitest';
import { parseKey, parseResponses } from '../../../src/scoring/choice/rows.ts';
import { scoreResponses } from '../../../src/scoring/choice/score.ts';
import { badInputMessage } from '../../helpers/errors.ts';

/**
 * Options are compared as written tokens ("2.50" is not "2.5"; only whole numbers match by value). A key
 * answer given as a JSON number is read by JSON.parse and stringified: 2.50 became "2.5", 5.0 "5", 1e3
 * "1000", so a model answering 2.50 — the key's own answer, as written — scored wrong (or invalid: "5.0"
 * and "1e3" named no option), exit 0, where the same key with "2.50" quoted scored it right. A number whose
 * text is not the number's own (String(n)) is refused, naming the line, as YAML puzzle ids are.
 */

const score = (key: string, response: string) => scoreResponses(parseKey(key, 'key'), parseResponses(`{"id":"q1","model":"m","response":${JSON.stringify(response)}}`, 'r'))[0]!;

describe('a key answer written as a JSON number', () => {
  it('is refused when JSON would read it as another text (2.50, 5.0, 1e3, options [1.0, 2.0])', () => {
    expect(badInputMessage(() => parseKey('{"id":"q1","answer":"B"}\n{"id":"q2", "answer": 2.50}', 'key'))).toBe(
      'key: line 2: answer 2.50 is a JSON number, which reads as 2.5 (a response giving 2.50 would not name it); write it as a string: "2.50"',
    );
    expect(badInputMessage(() => parseKey('{"id":"q1","answer":5.0}', 'key'))).toMatch(/^key: line 1: answer 5\.0 is a JSON number, which reads as 5 /);
    expect(badInputMessage(() => parseKey('{"id":"q1","answer":1e3}', 'key'))).toMatch(/^key: line 1: answer 1e3 is a JSON number, which reads as 1000 /);
    expect(badInputMessage(() => parseKey('{"id":"q1","answer":"1","options":[1.0,2.0]}', 'key'))).toMatch(/^key: line 1: options\[0\] 1\.0 is a JSON number, which reads as 1 /);
  });

  it('is read as written when JSON keeps its text (3, 12, 1.5), and a quoted one is as written', () => {
    expect(score('{"id":"q1","answer":3}', 'Answer: 3')).toMatchObject({ expected: '3', correct: true });
    expect(score('{"id":"q1","answer":1.5,"options":[1.5,2.5]}', 'Answer: 1.5')).toMatchObject({ expected: '1.5', correct: true });
    expect(score('{"id":"q1","answer":"2.50","options":["2.50","3.00"]}', 'Answer: 2.50')).toMatchObject({ expected: '2.50', correct: true });
    expect(parseKey('{"id":"q1","answer":"5.0","note":{"answer":5.0}}', 'key')[0]!.answer).toBe('5.0');
  });
});
