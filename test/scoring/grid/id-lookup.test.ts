import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdLookup } from '../../../src/scoring/grid/id-lookup.ts';

describe('IdLookup (ids found inside a longer string without slicing)', () => {
  it('finds every id at any offset and nothing else, as a Map would', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6, unit: 'grapheme' }), { minLength: 1, maxLength: 200 }),
        fc.array(fc.string({ maxLength: 6, unit: 'grapheme' }), { maxLength: 30 }),
        fc.string({ maxLength: 5 }),
        (ids, probes, pad) => {
          const lookup = new IdLookup(ids);
          const map = new Map(ids.map((id, k) => [id, k]));
          for (const q of [...ids, ...probes]) {
            if (q === '') continue;
            const s = `${pad}${q}${pad}`;
            expect(lookup.find(s, pad.length, pad.length + q.length)).toBe(map.get(q) ?? -1);
          }
        },
      ),
      { numRuns: 300, seed: 4 },
    );
  });

  it('handles many colliding probes in a nearly full table', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `id${i}`);
    const lookup = new IdLookup(ids);
    expect(lookup.find('xx id4999 yy', 3, 9)).toBe(4999);
    expect(lookup.find('id5000', 0, 6)).toBe(-1);
    expect(lookup.find('id49', 0, 2)).toBe(-1); // "id" is a prefix of every id, not an id
    expect(lookup.find('id49', 0, 3)).toBe(4);
  });
});
