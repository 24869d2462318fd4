import { describe, expect, it } from 'vitest';
import { isAssayError } from '../../../src/domain/errors.ts';
import { parseGridTruth } from '../../../src/domain/grid.ts';
import { scoreGrid } from '../../../src/scoring/grid/index.ts';
import { truthOf } from './helpers.ts';

/** Small cases computed by hand; each comment shows the arithmetic. */
describe('grid metrics, hand-computed', () => {
  it('2×3, worse than random: proximity is negative', () => {
    // truth a b c / d e f; answer b a c / d f e. H pairs ab bc de ef, V pairs ad be cf (m = 7).
    // Distances: ab 1, bc 2, de 2, ef 1, ad 2, be 3, cf 2 → Σ 13. No pair in true order.
    // E(2×3) = [9·6 + 4·24]/(3·6·5) = 150/90 = 5/3; proximity = (5/3 − 13/7)/(2/3) = −2/7.
    const s = scoreGrid(truthOf('a b c', 'd e f'), 'b a c\nd f e');
    expect(s.direct).toBeCloseTo(2 / 6, 12);
    expect(s.neighbour).toBe(0);
    expect(s.adjacency).toBeCloseTo(2 / 7, 12);
    expect(s.proximity).toBeCloseTo(-2 / 7, 12);
    // A 2-row grid has no interior; corners a c d f (c, d right), edges b e (both wrong).
    expect(s.byPosition).toEqual({ corner: 0.5, edge: 0, interior: null });
  });

  it('3×3: a correct patch counts wherever it sits (neighbour is translation-free)', () => {
    // Truth 1..9; answer 5 6 1 / 8 9 2 / 3 4 7 keeps the 2×2 patch 5 6 / 8 9 at the top left.
    // neighbour: 56 89 (H), 58 69 (V) = 4/12. adjacency adds 1–2 (stacked) and 4–7 (reversed): 6/12.
    // Σd = H 1+3+3+1+3+1 + V 3+3+3+1+1+1 = 24, d̄ = 2 = E(3×3) = 432/216 → proximity 0.
    const s = scoreGrid(truthOf('1 2 3', '4 5 6', '7 8 9'), '5 6 1\n8 9 2\n3 4 7');
    expect(s.direct).toBe(0);
    expect(s.neighbour).toBeCloseTo(4 / 12, 12);
    expect(s.adjacency).toBeCloseTo(6 / 12, 12);
    expect(s.proximity).toBeCloseTo(0, 12);
  });

  it('1×4 strip: ends are corners, the rest edges, no interior', () => {
    const t = truthOf('a b c d');
    // E(1×4) = (4+1)/3 = 5/3. "b a d c": ab adjacent reversed, bc 3 apart, cd adjacent reversed.
    const s = scoreGrid(t, 'b a d c');
    expect(s.direct).toBe(0);
    expect(s.neighbour).toBe(0);
    expect(s.adjacency).toBeCloseTo(2 / 3, 12);
    expect(s.proximity).toBeCloseTo(0, 12); // d̄ = 5/3 = E
    expect(s.byPosition).toEqual({ corner: 0, edge: 0, interior: null });
    // "c d a b": ab and cd kept in order, bc 3 apart.
    const rot = scoreGrid(t, 'c d a b');
    expect(rot.neighbour).toBeCloseTo(2 / 3, 12);
    expect(rot.proximity).toBeCloseTo(0, 12);
    expect(scoreGrid(t, 'a b c d')).toMatchObject({ direct: 1, neighbour: 1, adjacency: 1, proximity: 1 });
  });

  it('4×1 column (one id per line)', () => {
    // answer a b d c: ab kept, bc 2 apart, cd adjacent reversed. d̄ = 4/3, E = 5/3 → (1/3)/(2/3) = 0.5
    const s = scoreGrid(truthOf('a', 'b', 'c', 'd'), 'a\nb\nd\nc');
    expect(s.status).toBe('valid');
    expect(s.direct).toBe(0.5);
    expect(s.neighbour).toBeCloseTo(1 / 3, 12);
    expect(s.adjacency).toBeCloseTo(2 / 3, 12);
    expect(s.proximity).toBeCloseTo(0.5, 12);
    expect(s.byPosition).toEqual({ corner: 0.5, edge: 0.5, interior: null });
  });

  it('1×1 and 1×2: metrics without pairs or without scale are null', () => {
    const one = scoreGrid(truthOf('x'), 'x');
    expect(one).toMatchObject({ status: 'valid', direct: 1, exactMatch: 1, neighbour: null, adjacency: null, proximity: null });
    expect(one.byPosition).toEqual({ corner: 1, edge: null, interior: null });
    // 1×2: E = 1 (the two cells are always adjacent), so proximity has no scale.
    const two = scoreGrid(truthOf('a b'), 'b a');
    expect(two).toMatchObject({ direct: 0, neighbour: 0, adjacency: 1, proximity: null });
  });

  it('an unplaced piece counts as E in proximity', () => {
    // 2×2 a b / c d, answer a b / c _: pairs ab ac placed (d = 1), cd bd unplaced (E = 4/3 each).
    // d̄ = (1 + 1 + 8/3)/4 = 7/6; proximity = (4/3 − 7/6)/(1/3) = 0.5
    const s = scoreGrid(truthOf('a b', 'c d'), 'a b\nc _');
    expect(s.status).toBe('repaired');
    expect(s.problems).toEqual(["1 piece not placed: 'd'"]);
    expect(s.direct).toBe(0.75);
    expect(s.neighbour).toBe(0.5);
    expect(s.adjacency).toBe(0.5);
    expect(s.proximity).toBeCloseTo(0.5, 12);
  });

  describe('shapeCompatibility', () => {
    // a b / c d with a.r tab–b.l blank, c.r blank–d.l tab, a.b blank–c.t tab, b.b tab–d.t blank.
    const t = parseGridTruth(
      {
        rows: 2,
        cols: 2,
        layout: [['a', 'b'], ['c', 'd']],
        edges: {
          a: ['flat', 'tab', 'blank', 'flat'],
          b: ['flat', 'flat', 'tab', 'blank'],
          c: ['tab', 'blank', 'flat', 'flat'],
          d: ['blank', 'flat', 'flat', 'tab'],
        },
      },
      'shapes',
    );
    it.each([
      ['a b\nc d', 1, 'true layout'],
      ['c d\na b', 2 / 4, 'rows swapped: both H edges fit, V edges meet flat–flat'],
      ['b a\nd c', 2 / 4, 'columns swapped: both V edges fit, H edges flat–flat'],
      ['a d\nc b', 1 / 4, 'a.r tab–d.l tab ✗, c.r blank–b.l blank ✗, a.b–c.t ✓, d.b flat ✗'],
      ['a b\nc _', 1, 'only edges with both cells filled count: a–b and a–c'],
      ['a _\n_ _', 0, 'no two filled cells side by side: nothing fits'],
    ])('%s → %d (%s)', (answer, expected) => {
      expect(scoreGrid(t, answer).shapeCompatibility).toBeCloseTo(expected, 12);
    });
    it('is null when the truth has no edges', () => {
      expect(scoreGrid(truthOf('a b', 'c d'), 'a b\nc d').shapeCompatibility).toBeNull();
    });
  });

  it('clue mode: bad given ids are bad input', () => {
    const t = truthOf('a b', 'c d');
    const err = (given: string[]) => {
      try {
        scoreGrid(t, 'a b\nc d', { given });
      } catch (e) {
        return isAssayError(e) ? `${e.code}: ${e.message}` : String(e);
      }
      return 'no error';
    };
    expect(err(['z'])).toBe("bad_input: given: unknown piece id 'z'");
    expect(err(['a', 'a'])).toBe("bad_input: given: piece id 'a' is listed twice");
    expect(err(['a', 'b', 'c', 'd'])).toBe('bad_input: given: every piece is given, so nothing is left to score');
    // all corners given in a 2×2: the corner class has nothing left to score
    expect(scoreGrid(truthOf('a b c', 'd e f'), 'a b c\nd e f', { given: ['a', 'c', 'd', 'f'] }).byPosition).toEqual({
      corner: null,
      edge: 1,
      interior: null,
    });
  });
});
