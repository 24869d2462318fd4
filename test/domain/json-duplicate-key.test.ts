import { describe, expect, it } from 'vitest';
import { duplicateKey } from '../../src/domain/json-check.ts';
import { duplicateKeyError } from '../../src/judges/json-duplicate-keys.ts';
import { mulberry32 } from '../../src/stats/random.ts';

describe('duplicateKey (API bodies, imported files, judge replies)', () => {
  it('finds a key repeated in one object, with the path of that object', () => {
    expect(duplicateKey('{"a":1,"a":2}')).toEqual({ path: ['a'] });
    expect(duplicateKey('{"items":[{"id":"x","v":1},{"id":"y","v":1,"v":2}]}')).toEqual({ path: ['items', 1, 'v'] });
    expect(duplicateKey('{"a":{"b":[[0],[1,{"c":0,"c":1}]]}}')).toEqual({ path: ['a', 'b', 1, 1, 'c'] });
    // The key as JSON.parse decodes it.
    expect(duplicateKey('{"items":[],"\\u0069tems":[]}')).toEqual({ path: ['items'] });
    // Strings ending in escaped backslashes, and a long text value skipped whole.
    expect(duplicateKey(JSON.stringify({ t: 'x\\', u: `${'y'.repeat(100_000)}"\\`, v: 1 }).replace('"v"', '"t"'))).toEqual({ path: ['t'] });
    // `{}` leaves no key pending: a string after it in an array is a value.
    expect(duplicateKey('[{},"x",{"x":1}]')).toBeNull();
  });

  it('a judge reply\'s duplicate as a re-ask states it', () => {
    expect(duplicateKeyError('{"a":1,"a":2}')).toBe("key 'a' given twice at the top level");
    expect(duplicateKeyError('{"items":[{"id":"x","v":1},{"id":"y","v":1,"v":2}]}')).toBe("key 'v' given twice in items.1");
    expect(duplicateKeyError('{"items":[{"id":"x"}]}')).toBeNull();
  });

  it('keys repeated across objects or levels, and key-like text inside strings, are not duplicates', () => {
    expect(duplicateKey('{"items":[{"id":"a"},{"id":"b"}],"id":{"id":1}}')).toBeNull();
    expect(duplicateKey('{"a":"x\\",\\"a\\":\\"y","b":"{\\"b\\":1,\\"b\\":2}"}')).toBeNull();
    expect(duplicateKey('{"a":"[,]","b":[",",{"a":1}],"c":"}"}')).toBeNull();
    expect(duplicateKey('[{"a":1},{"a":1}]')).toBeNull();
    expect(duplicateKey('"a"')).toBeNull();
  });

  it('JSON.stringify never writes a duplicate: none found in 300 random documents', () => {
    const rng = mulberry32(11);
    const pick = (n: number) => Math.floor(rng() * n);
    const keys = ['a', 'b', 'id', 'verdict', 'x,y', 'q"u', '{', '\\'];
    const gen = (depth: number): unknown => {
      const k = pick(depth > 3 ? 3 : 5);
      if (k === 0) return pick(100);
      if (k === 1) return keys[pick(keys.length)]! + '",[{';
      if (k === 2) return null;
      if (k === 3) return Array.from({ length: pick(4) }, () => gen(depth + 1));
      return Object.fromEntries(Array.from({ length: pick(5) }, () => [keys[pick(keys.length)]!, gen(depth + 1)]));
    };
    for (let i = 0; i < 300; i++) expect(duplicateKey(JSON.stringify({ root: gen(0) }))).toBeNull();
  });

  it('scans a deep document without recursion', () => {
    const deep = '['.repeat(50_000) + '{"a":1,"a":2}' + ']'.repeat(50_000);
    expect(duplicateKey(deep)?.path.at(-1)).toBe('a');
  });
});
