import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from '../../src/judges/json-duplicate-keys.ts';
import { mulberry32 } from '../../src/stats/random.ts';

describe('firstDuplicateKey', () => {
  it('finds a key repeated in one object, with the path of that object', () => {
    expect(firstDuplicateKey('{"a":1,"a":2}')).toEqual({ key: 'a', path: '' });
    expect(firstDuplicateKey('{"items":[{"id":"x","v":1},{"id":"y","v":1,"v":2}]}')).toEqual({ key: 'v', path: 'items.1' });
    expect(firstDuplicateKey('{"a":{"b":[[0],[1,{"c":0,"c":1}]]}}')).toEqual({ key: 'c', path: 'a.b.1.1' });
    // The key as JSON.parse decodes it.
    expect(firstDuplicateKey('{"items":[],"\\u0069tems":[]}')).toEqual({ key: 'items', path: '' });
  });

  it('keys repeated across objects or levels, and key-like text inside strings, are not duplicates', () => {
    expect(firstDuplicateKey('{"items":[{"id":"a"},{"id":"b"}],"id":{"id":1}}')).toBeNull();
    expect(firstDuplicateKey('{"a":"x\\",\\"a\\":\\"y","b":"{\\"b\\":1,\\"b\\":2}"}')).toBeNull();
    expect(firstDuplicateKey('{"a":"[,]","b":[",",{"a":1}],"c":"}"}')).toBeNull();
    expect(firstDuplicateKey('[{"a":1},{"a":1}]')).toBeNull();
    expect(firstDuplicateKey('"a"')).toBeNull();
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
    for (let i = 0; i < 300; i++) expect(firstDuplicateKey(JSON.stringify({ root: gen(0) }))).toBeNull();
  });

  it('scans a deep document without recursion', () => {
    const deep = '['.repeat(50_000) + '{"a":1,"a":2}' + ']'.repeat(50_000);
    expect(firstDuplicateKey(deep)?.key).toBe('a');
  });
});
