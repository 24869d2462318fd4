import { describe, expect, it } from 'vitest';
import { topLevelObjectSpans } from '../../src/domain/json-spans.ts';

const texts = (text: string) => topLevelObjectSpans(text).map(({ from, to }) => text.slice(from, to));

describe('topLevelObjectSpans', () => {
  it('finds the top-level objects of prose in text order, nested ones inside their parent', () => {
    expect(texts('a {"x": {"y": 1}} b {"z": 2} c')).toEqual(['{"x": {"y": 1}}', '{"z": 2}']);
    expect(topLevelObjectSpans('ab {} cd')).toEqual([{ from: 3, to: 5 }]);
    expect(topLevelObjectSpans('no object here')).toEqual([]);
  });

  it('skips braces inside strings, escaped quotes included, but prose quotes do not hide braces', () => {
    expect(texts('{"a": "}{", "b": "say \\"}\\" now"} tail')).toEqual(['{"a": "}{", "b": "say \\"}\\" now"}']);
    expect(texts('he said "{"k": 1}"')).toEqual(['{"k": 1}']);
  });

  it('keeps an object left open at the end, running to the end of the text', () => {
    const text = 'first {"a": 1} then {"b": [1, 2';
    expect(topLevelObjectSpans(text)).toEqual([
      { from: 6, to: 14 },
      { from: 20, to: text.length },
    ]);
  });

  it('ignores a stray closing brace outside any object', () => {
    expect(texts('} {"a": 1} }')).toEqual(['{"a": 1}']);
  });
});
