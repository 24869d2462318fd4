import { describe, expect, it } from 'vitest';
import { parseGridTruth } from '../../../src/domain/grid.ts';
import { scoreGrid } from '../../../src/scoring/grid/index.ts';

/**
 * A JSON answer cell holding a number beyond 2^53 − 1 is not the number JSON.parse returns: the model's
 * 9007199254740993 reads as 9007199254740992, and stringified it named the truth's piece
 * '9007199254740992', which the answer never wrote: that piece was placed (direct 1, status valid, no
 * problem). Such a cell names no piece that can be told: left blank, with a problem that says why.
 */

const truth = parseGridTruth({ rows: 1, cols: 2, layout: [['9007199254740992', 'b']] }, 'T');

describe('JSON answer cells beyond 2^53', () => {
  it('2-D array: the cell is left blank and said, not matched to the rounded id (hand-computed)', () => {
    const s = scoreGrid(truth, '[[9007199254740993, "b"]]');
    expect(s.status).toBe('repaired');
    expect(s.direct).toBe(0.5);
    expect(s.neighbour).toBe(0);
    expect(s.problems[0]).toMatch(/^cell \(0,0\) holds 9007199254740992, a number beyond 9007199254740991 .*: cell left blank$/);
  });

  it('the same id as a string is placed; a safe number is stringified as before', () => {
    expect(scoreGrid(truth, '[["9007199254740992", "b"]]').direct).toBe(1);
    const small = parseGridTruth({ rows: 1, cols: 2, layout: [[7, 'b']] }, 'T');
    expect(scoreGrid(small, '[[7, "b"]]')).toMatchObject({ status: 'valid', direct: 1 });
  });
});
