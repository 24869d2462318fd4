import fc from 'fast-check';
import { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { queryNumber } from '../../src/api/schemas.ts';
import { numberFlag } from '../../src/cli/io.ts';
import { SCALES } from '../../src/domain/labels.ts';
import { readDecimal } from '../../src/domain/limit-values.ts';
import { shareOf } from '../../src/services/import-formats/scores.ts';

/**
 * One rule for a number written as text (domain/limit-values.ts readDecimal), read alike by the API's
 * query strings, the CLI's flags, the numeric label scale and the score importer. Before, each had its own
 * copy of the regex, and they had drifted: the API took `?seed=1e1` as seed 10 where `--seed 1e1` was refused.
 */

const CORPUS = [
  '0', '7', '+7', '-7', '007', '.5', '5.', '0.5', '-.5', '1e1', '1E1', '1e-1', '1.5e+2', '2.0', '1e400', '-1e400',
  '0x10', '0X10', '0b1', '0o7', 'Infinity', '-Infinity', 'NaN', '1_000', '1,5', '١', '½', '.', '+', '-', 'e5', '1e', '1..2',
  '9007199254740991', '9007199254740993', '4294967295', '4294967296', 'ten', '7 7',
];

/** What the API makes of a (trimmed, non-blank) query value: the number, or 'refused'. */
const api = (text: string, integer: boolean): number | 'refused' => {
  const r = queryNumber(integer ? z.number().int() : z.number()).safeParse(text);
  return r.success ? (r.data as number) : 'refused';
};
/** What the CLI makes of a flag value. */
const cli = (text: string, integer: boolean): number | 'refused' => {
  try {
    return numberFlag({ n: text }, 'n', { integer }) as number;
  } catch {
    return 'refused';
  }
};
const rule = (text: string, integer: boolean): number | 'refused' => {
  const r = readDecimal(text, { integer });
  return typeof r === 'number' ? r : 'refused';
};

describe('a number as text: one rule for the API, the CLI and the importers', () => {
  it('reads the corpus as expected', () => {
    expect(rule('.5', false)).toBe(0.5);
    expect(rule('1e1', false)).toBe(10);
    expect(rule('1e1', true)).toBe('refused');
    expect(rule('2.0', true)).toBe('refused');
    expect(rule('+7', true)).toBe(7);
    expect(rule('0x10', false)).toBe('refused');
    expect(rule('1e400', false)).toBe('refused');
    expect(rule('9007199254740993', true)).toBe('refused');
    expect(rule('9007199254740993', false)).toBe(9007199254740992);
    expect(rule('', false)).toBe('refused');
    expect(rule(' 7', false)).toBe('refused');
  });

  for (const integer of [false, true]) {
    it(`the API's query strings and the CLI's flags accept and refuse the same texts (${integer ? 'whole' : 'real'} numbers)`, () => {
      for (const t of CORPUS) {
        expect({ t, api: api(t, integer) }).toEqual({ t, api: rule(t, integer) });
        expect({ t, cli: cli(t, integer) }).toEqual({ t, cli: rule(t, integer) });
      }
      fc.assert(
        fc.property(fc.oneof(fc.string({ unit: fc.constantFrom(...'0123456789+-.eExX _'.split('')), maxLength: 8 }), fc.string({ maxLength: 6 })), (s) => {
          const t = s.trim();
          if (t === '') return; // blank: not given on the API (its default), refused as a flag value
          expect(api(t, integer)).toEqual(rule(t, integer));
          expect(cli(t, integer)).toEqual(rule(t, integer));
        }),
      );
    });
  }

  it('a flag given blank is refused (an unset variable in `--top "$TOP"`), never read as 0', () => {
    expect(cli('', true)).toBe('refused');
    expect(cli('  ', false)).toBe('refused');
  });

  it('the numeric label scale takes a number or its text only (before, null and [] read as 0, [5] as 5)', () => {
    for (const v of [null, [], [5], {}, true, false, '', ' ']) expect({ v, n: SCALES.numeric.normalise(v) }).toEqual({ v, n: null });
    expect(SCALES.numeric.normalise(3)).toEqual({ category: 3, value: 3 });
    expect(SCALES.numeric.normalise(' 3.5 ')).toEqual({ category: 3.5, value: 3.5 });
  });

  it('the numeric label scale and the score importer read numbers by the same rule', () => {
    for (const t of CORPUS) {
      const n = rule(t, false);
      expect({ t, label: SCALES.numeric.normalise(t)?.value ?? 'refused' }).toEqual({ t, label: n });
      const share = shareOf(t);
      const expected = n === 'refused' ? 'refused' : n >= 0 && n <= 1 ? n : 'refused';
      expect({ t, share: 'value' in share ? share.value : 'refused' }).toEqual({ t, share: expected });
    }
  });
});
