import { describe, expect, it } from 'vitest';
import { parseKey, parseResponses } from '../../src/scoring/choice/rows.ts';
import { parseVerdictsJsonl } from '../../src/scoring/description/batch.ts';
import { parseAnswersJsonl, parseTargetsJsonl } from '../../src/scoring/tangram/rows.ts';
import { parseGridAnswersJsonl } from '../../src/scoring/grid/batch.ts';
import { badInputMessage } from '../helpers/errors.ts';

const expectBadInputError = (f: () => unknown, re: RegExp) => expect(badInputMessage(f)).toMatch(re);

/**
 * A row id written as a JSON number beyond 2^53 − 1 is not the number JSON.parse returns:
 * 12345678901234567891 reads as 12345678901234567000, and 9007199254740993 as 9007199254740992. Batch
 * lines came back under an id the input never gave, and a choice response for item 9007199254740993 was
 * scored against the key of item 9007199254740992 (exit 0). Such ids are refused, naming the line; the
 * same ids as strings are kept exactly.
 */

const BIG = '12345678901234567891';
const refused = /line 1: "id" is a number beyond 9007199254740991/;

describe('row ids JSON numbers cannot hold exactly', () => {
  it('score description --verdicts: refused; as a string kept', () => {
    expectBadInputError(() => parseVerdictsJsonl(`{"id":${BIG},"items":[]}\n`, 'v.jsonl'), refused);
    expect(parseVerdictsJsonl(`{"id":"${BIG}","items":[]}\n`, 'v.jsonl')[0]!.id).toBe(BIG);
    // The largest exact integer is still a number id.
    expect(parseVerdictsJsonl(`{"id":9007199254740991,"items":[]}\n`, 'v.jsonl')[0]!.id).toBe('9007199254740991');
  });

  it('score grid --answers: refused', () => {
    const truth = { rows: 1, cols: 2, grid: [['a', 'b']] } as never;
    expectBadInputError(() => parseGridAnswersJsonl(`{"id":${BIG},"answer":"a b"}\n`, 'g.jsonl', truth), refused);
  });

  it('score choice: a key id and a response id that JSON.parse makes one number are refused, not matched', () => {
    expect(JSON.parse('9007199254740993')).toBe(9007199254740992);
    expectBadInputError(() => parseKey('{"id":9007199254740992,"answer":"A"}\n', 'key.jsonl'), /line 1: "id" is a number beyond/);
    expectBadInputError(() => parseResponses('{"id":9007199254740993,"model":"m","response":"A"}\n', 'r.jsonl'), /line 1: "id" is a number beyond/);
    expect(parseResponses(`{"id":"${BIG}","model":"m","response":"A"}\n`, 'r.jsonl')[0]!.id).toBe(BIG);
  });

  it('score tangram --targets / --answers: refused', () => {
    expectBadInputError(() => parseTargetsJsonl(`{"id":${BIG},"outline":[[0,0],[1,0],[1,1]]}\n`, 't.jsonl'), refused);
    expectBadInputError(() => parseAnswersJsonl(`{"id":${BIG},"model":"m","response":"{}"}\n`, 'a.jsonl', { byId: new Map(), fallback: null }), refused);
  });
});
