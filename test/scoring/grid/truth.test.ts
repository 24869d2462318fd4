import { describe, expect, it } from 'vitest';
import { isAssayError } from '../../../src/domain/errors.ts';
import { parseGivenIds, parseGridTruth } from '../../../src/domain/grid.ts';
import { truthOf } from './helpers.ts';

const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return isAssayError(e) ? `${e.code}: ${e.message}` : `not an AssayError: ${String(e)}`;
  }
  return 'no error';
};

describe('grid truth file', () => {
  it('stringifies JSON numbers and keeps edges', () => {
    const t = parseGridTruth({ rows: 1, cols: 2, layout: [[7, '8']], edges: { 7: ['flat', 'tab', 'flat', 'flat'], 8: ['flat', 'flat', 'flat', 'blank'] } }, 'T');
    expect(t.layout).toEqual([['7', '8']]);
    expect(t.edges?.['7']).toEqual(['flat', 'tab', 'flat', 'flat']);
  });

  it.each([
    [{ rows: 2, cols: 2, layout: [['a', 'b'], ['c']] }, "bad_input: T.json: layout[1]: has 1 ids, expected cols = 2"],
    [{ rows: 2, cols: 2, layout: [['a', 'b']] }, 'bad_input: T.json: layout: has 1 rows, expected rows = 2'],
    [{ rows: 2, cols: 2, layout: [['a', 'b'], ['c', 'a']] }, "bad_input: T.json: layout[1][1]: duplicate piece id 'a' (also at layout[0][0])"],
    [{ rows: 1, cols: 2, layout: [[1, '1']] }, "bad_input: T.json: layout[0][1]: duplicate piece id '1' (also at layout[0][0])"],
    [{ rows: 1, cols: 2, layout: [['a', 'b']], edges: { a: ['flat', 'tab', 'flat', 'flat'] } }, "bad_input: T.json: edges: no edges for piece 'b'"],
    [
      { rows: 1, cols: 1, layout: [['a']], edges: { a: ['flat', 'flat', 'flat', 'flat'], z: ['flat', 'flat', 'flat', 'flat'] } },
      "bad_input: T.json: edges.z: piece 'z' is not in the layout",
    ],
    [{ rows: 1, cols: 1, layout: [['a']], edges: { a: ['flat', 'knob', 'flat', 'flat'] } }, 'bad_input: T.json: edges.a[1]: Invalid option: expected one of "tab"|"blank"|"flat"'],
    [{ rows: 1, cols: 2, layout: [['a b', 'c']] }, 'bad_input: T.json: layout[0][0]: piece ids must not contain spaces, commas, semicolons, pipes, brackets, quotes or < >'],
    [{ rows: 0, cols: 2, layout: [] }, 'bad_input: T.json: rows: Too small: expected number to be >0'],
    [[1, 2], 'bad_input: T.json: Invalid input: expected object, received array'],
  ])('rejects %j', (raw, expected) => {
    expect(message(() => parseGridTruth(raw, 'T.json'))).toBe(expected);
  });

  it('given ids: a JSON array of known ids, once each, not all', () => {
    const t = truthOf('1 2', '3 4');
    expect(parseGivenIds([1, '4'], t, 'G.json')).toEqual(['1', '4']);
    expect(message(() => parseGivenIds({ ids: [1] }, t, 'G.json'))).toBe('bad_input: G.json: expected a JSON array of piece ids');
    expect(message(() => parseGivenIds([9], t, 'G.json'))).toBe("bad_input: G.json: unknown piece id '9' (not in the truth layout)");
    expect(message(() => parseGivenIds([1, 1], t, 'G.json'))).toBe("bad_input: G.json: piece id '1' is listed twice");
    expect(message(() => parseGivenIds([true], t, 'G.json'))).toBe('bad_input: G.json: [0]: expected a piece id (string or number), got true');
    expect(message(() => parseGivenIds([1, 2, 3, 4], t, 'G.json'))).toBe('bad_input: G.json: every piece is given, so nothing is left to score');
  });
});
