import { describe, expect, it } from 'vitest';
import { summarizeTangram } from '../../../src/scoring/tangram/batch.ts';
import { verifyTangram } from '../../../src/scoring/tangram/verify.ts';

/** A model named "__proto__" is listed like any other (assigned into a plain {} it set the prototype and vanished). */
describe('summarizeTangram: any model name is kept', () => {
  it('__proto__', () => {
    const result = verifyTangram({ outline: [[0, 0], [1, 0], [1, 1], [0, 1]] }, 'no answer');
    const s = summarizeTangram([{ model: '__proto__', result }, { model: 'm', result }]);
    expect(Object.keys(s)).toEqual(['__proto__', 'm']);
    expect(JSON.parse(JSON.stringify(s)).__proto__).toMatchObject({ n: 1, syntaxErrorRate: 1 });
  });
});
