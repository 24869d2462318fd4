import { describe, expect, it } from 'vitest';
import { CANONICAL, CLASSIC_SQUARE, normalizePieceType, PIECE_COUNTS, placePiece, type PieceType } from '../../../src/scoring/tangram/pieces.ts';
import { area, cleanRing, dist, isSimpleRing, perimeter, ringDistance } from '../../../src/scoring/tangram/polygon.ts';
import { rigidProblems } from '../../../src/scoring/tangram/rigid.ts';

const r2 = Math.SQRT2;
const sides = (ring: [number, number][]) => ring.map((p, i) => dist(p, ring[(i + 1) % ring.length]!));

describe('canonical tangram pieces (square of side 1)', () => {
  it('have the lengths of the standard dissection', () => {
    expect(sides(CANONICAL.large_triangle)).toEqual([r2 / 2, 1, r2 / 2].map((x) => expect.closeTo(x, 15)));
    expect(sides(CANONICAL.medium_triangle)).toEqual([0.5, r2 / 2, 0.5].map((x) => expect.closeTo(x, 15)));
    expect(sides(CANONICAL.small_triangle)).toEqual([r2 / 4, 0.5, r2 / 4].map((x) => expect.closeTo(x, 15)));
    expect(sides(CANONICAL.square)).toEqual([1, 1, 1, 1].map(() => expect.closeTo(r2 / 4, 15)));
    expect(sides(CANONICAL.parallelogram)).toEqual([0.5, r2 / 4, 0.5, r2 / 4].map((x) => expect.closeTo(x, 15)));
  });

  it('have areas 1/4, 1/8, 1/16, 1/8, 1/8 that sum to 1 over the full set', () => {
    const expected: Record<PieceType, number> = { large_triangle: 1 / 4, medium_triangle: 1 / 8, small_triangle: 1 / 16, square: 1 / 8, parallelogram: 1 / 8 };
    let total = 0;
    for (const [type, count] of Object.entries(PIECE_COUNTS) as [PieceType, number][]) {
      expect(area(CANONICAL[type])).toBeCloseTo(expected[type], 15);
      total += count * area(CANONICAL[type]);
    }
    expect(total).toBeCloseTo(1, 15);
  });

  it('the classic square is made of exact copies of the canonical pieces', () => {
    for (const p of CLASSIC_SQUARE) expect(rigidProblems('p', p.type, p.vertices, 1e-12)).toEqual([]);
    expect(CLASSIC_SQUARE.reduce((s, p) => s + area(p.vertices), 0)).toBeCloseTo(1, 15);
  });

  it('light-form placement: reflect in y, rotate counter-clockwise about the origin, translate', () => {
    expect(placePiece('medium_triangle', 90, false, [1, 1])).toEqual([[1, 1], [1, 1.5], [0.5, 1]]);
    expect(placePiece('medium_triangle', 0, true, [0, 0])).toEqual([[0, 0], [0.5, 0], [0, -0.5]]);
    const turned = placePiece('parallelogram', 45, true, [2, 3]);
    expect(rigidProblems('p', 'parallelogram', turned, 1e-12)).toEqual([]);
  });

  it('reads piece names as models write them', () => {
    expect(normalizePieceType('Large Triangle')).toBe('large_triangle');
    expect(normalizePieceType('small-triangle')).toBe('small_triangle');
    expect(normalizePieceType('mediumTriangle')).toBe('medium_triangle');
    expect(normalizePieceType('rhombus')).toBeNull();
    expect(normalizePieceType('constructor')).toBeNull();
    expect(normalizePieceType(3)).toBeNull();
  });
});

describe('rigid check', () => {
  it('names a stretched piece by area, perimeter and distances', () => {
    const stretched = CANONICAL.square.map(([x, y]) => [x * 1.2, y] as [number, number]);
    const problems = rigidProblems('piece F', 'square', stretched, 0.005);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^piece F: area 0\.15, a square has 0\.125$/);
    expect(problems[2]).toContain('stretched or distorted');
  });

  it('accepts a reflected parallelogram and rejects a 60° one with the same sides', () => {
    const mirrored = CANONICAL.parallelogram.map(([x, y]) => [-x, y] as [number, number]);
    expect(rigidProblems('p', 'parallelogram', mirrored, 1e-9)).toEqual([]);
    // same sides, but a 60° angle instead of 45°: congruent sides, different shape
    const s = r2 / 4;
    const skew: [number, number][] = [[0, 0], [0.5, 0], [0.5 + s / 2, (s * Math.sqrt(3)) / 2], [s / 2, (s * Math.sqrt(3)) / 2]];
    expect(rigidProblems('p', 'parallelogram', skew, 0.005).join()).toContain('vertex distances differ');
  });

  it('rejects a wrong corner count', () => {
    expect(rigidProblems('p', 'square', CANONICAL.small_triangle, 0.005)).toEqual(['p: has 3 corners, a square has 4']);
  });
});

describe('polygon helpers', () => {
  it('cleanRing drops closing, repeated and collinear vertices', () => {
    expect(cleanRing([[0, 0], [0.5, 0], [1, 0], [1, 0], [0, 1], [0, 0]], 1e-9)).toEqual([[0, 0], [1, 0], [0, 1]]);
  });
  it('isSimpleRing rejects a bow-tie and a fold-back', () => {
    expect(isSimpleRing([[0, 0], [1, 0], [1, 1], [0, 1]])).toBe(true);
    expect(isSimpleRing([[0, 0], [1, 1], [1, 0], [0, 1]])).toBe(false);
    expect(isSimpleRing([[0, 0], [2, 0], [1, 0], [1, 1]])).toBe(false);
  });
  it('ringDistance is the gap between polygons, 0 when touching at a corner', () => {
    const sq = (x: number, y: number): [number, number][] => [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]];
    expect(ringDistance(sq(0, 0), sq(1, 1))).toBe(0);
    expect(ringDistance(sq(0, 0), sq(1.5, 0))).toBeCloseTo(0.5, 15);
    expect(perimeter(sq(0, 0))).toBe(4);
  });
});
