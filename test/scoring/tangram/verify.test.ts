import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLASSIC_SQUARE, type Point } from '../../../src/scoring/tangram/pieces.ts';
import { verifyTangram } from '../../../src/scoring/tangram/verify.ts';
import { FIXTURES } from '../../helpers/cli.ts';

const fixture = (name: string) => readFileSync(`${FIXTURES}tangram/${name}`, 'utf8');
const SQUARE = { outline: [[0, 0], [1, 0], [1, 1], [0, 1]] as Point[] };

type Piece = { id: string; type: string; vertices: Point[] };
const classic = (): Piece[] => CLASSIC_SQUARE.map((p, i) => ({ id: 'ABCDEFG'[i]!, type: p.type, vertices: p.vertices.map((v) => [...v] as Point) }));
const answer = (pieces: Piece[]) => JSON.stringify({ pieces });
const moved = (pieces: Piece[], id: string, vertices: Point[]) => pieces.map((p) => (p.id === id ? { ...p, vertices } : p));

// The classic square with the medium triangle (C) moved to the left side: a valid six-sided figure.
const HEXAGON_PIECES = moved(classic(), 'C', [[0, 1], [-0.5, 1], [0, 0.5]]);
const HEXAGON = { outline: [[0, 0], [1, 0], [1, 0.5], [0.5, 1], [-0.5, 1], [0, 0.5]] as Point[] };

describe('verifyTangram: valid assemblies', () => {
  it('the classic seven-piece square (side 1) is a success with IoU 1 and Hausdorff 0', () => {
    const r = verifyTangram(SQUARE, fixture('square.answer.txt'));
    expect(r).toEqual({
      status: 'repaired',
      syntaxError: false,
      rigidError: false,
      overlapError: false,
      connectivityError: false,
      iou: 1,
      hausdorff: 0,
      validPass: true,
      success: true,
      problems: ['escaped LaTeX backslashes inside JSON strings'],
    });
  });

  it('the light form (rotation, reflection, translation of canonical pieces) gives the same square', () => {
    const r = verifyTangram(SQUARE, fixture('square.light.answer.txt'));
    expect(r.status).toBe('ok');
    expect(r.success).toBe(true);
    expect(r.iou).toBeCloseTo(1, 12);
    expect(r.hausdorff).toBeCloseTo(0, 12);
  });

  it('a valid non-square figure is a success against its own silhouette, not against the square', () => {
    const own = verifyTangram(HEXAGON, answer(HEXAGON_PIECES));
    expect(own.success).toBe(true);
    expect(own.iou).toBeCloseTo(1, 12);
    expect(own.hausdorff).toBeCloseTo(0, 12);
    const other = verifyTangram(SQUARE, answer(HEXAGON_PIECES));
    expect(other.validPass).toBe(true);
    expect(other.success).toBe(false);
    // intersection 7/8 (the moved triangle is outside), union 1 + 1/8
    expect(other.iou).toBeCloseTo(7 / 8 / (9 / 8), 12);
    // farthest outline points: the square's corner (1,1) from the cut edge, √2/4; the tip (−1/2,1) from the square, 1/2
    expect(other.hausdorff).toBeCloseTo(0.5, 9);
    expect(other.problems).toEqual(['silhouette IoU 0.7778 is below 0.99']);
  });

  it('rotating, reflecting and translating a valid assembly together with its target keeps it a success (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -360, max: 360, noNaN: true }),
        fc.boolean(),
        fc.double({ min: -50, max: 50, noNaN: true }),
        fc.double({ min: -50, max: 50, noNaN: true }),
        fc.constantFrom({ pieces: classic(), target: SQUARE }, { pieces: HEXAGON_PIECES, target: HEXAGON }),
        (deg, reflect, dx, dy, fig) => {
          const a = (deg * Math.PI) / 180;
          const move = ([x, y0]: Point): Point => {
            const y = reflect ? -y0 : y0;
            return [Math.cos(a) * x - Math.sin(a) * y + dx, Math.sin(a) * x + Math.cos(a) * y + dy];
          };
          const pieces = fig.pieces.map((p) => ({ ...p, vertices: p.vertices.map(move) }));
          const r = verifyTangram({ outline: fig.target.outline.map(move) }, answer(pieces));
          expect(r.problems).toEqual([]);
          expect(r.success).toBe(true);
          expect(r.iou).toBeGreaterThan(1 - 1e-9);
          expect(r.hausdorff).toBeLessThan(1e-9);
        },
      ),
      { numRuns: 60, seed: 11 },
    );
  });
});

describe('verifyTangram: cheating and mistakes are named', () => {
  it('a stretched piece is a rigid error', () => {
    // the square piece F pulled 20% longer along one side
    const r = verifyTangram(SQUARE, answer(moved(classic(), 'F', [[0.5, 0.5], [0.8, 0.2], [1.05, 0.45], [0.75, 0.75]])));
    expect(r.rigidError).toBe(true);
    expect(r.validPass).toBe(false);
    expect(r.success).toBe(false);
    expect(r.problems[0]).toMatch(/^piece F \(square\): area 0\.15, a square has 0\.125$/);
  });

  it('two overlapping pieces are an overlap error, with the overlap area', () => {
    // small triangle E slid onto the square piece F: its right angle at F's centre (0.75, 0.5)
    const r = verifyTangram(SQUARE, answer(moved(classic(), 'E', [[1, 0.25], [1, 0.75], [0.75, 0.5]])));
    expect(r.rigidError).toBe(false);
    expect(r.overlapError).toBe(true);
    expect(r.connectivityError).toBe(false);
    expect(r.validPass).toBe(false);
    // E ∩ F is the rhombus (0.75,0.5),(0.875,0.375),(1,0.5),(0.875,0.625): diagonals 1/4 × 1/4, area 1/32
    expect(r.problems).toContain('piece E (small_triangle) and piece F (square) overlap by area 0.0313');
  });

  it('a detached piece is a connectivity error naming the groups', () => {
    const r = verifyTangram(SQUARE, answer(moved(classic(), 'C', [[6, 6], [5.5, 6], [6, 5.5]])));
    expect(r.connectivityError).toBe(true);
    expect(r.overlapError).toBe(false);
    expect(r.rigidError).toBe(false);
    expect(r.validPass).toBe(false);
    expect(r.problems).toContain('pieces fall apart into 2 separate groups: [A, B, D, E, F, G] [C]');
  });

  it('covering the target only by overlapping pieces gives high IoU yet fails validPass', () => {
    // target: the square without the parallelogram's notch; the parallelogram hidden inside large triangle A
    const notched = { outline: [[0, 0], [1, 0], [1, 1], [0.5, 1], [0.75, 0.75], [0.25, 0.75], [0, 1]] as Point[] };
    const r = verifyTangram(notched, answer(moved(classic(), 'G', [[0, 0], [0.5, 0], [0.75, 0.25], [0.25, 0.25]])));
    expect(r.iou).toBeCloseTo(1, 12);
    expect(r.hausdorff).toBeCloseTo(0, 12);
    expect(r.overlapError).toBe(true);
    expect(r.validPass).toBe(false);
    expect(r.success).toBe(false);
    expect(r.problems).toEqual(['piece A (large_triangle) and piece G (parallelogram) overlap by area 0.1250']);
  });

  it('coordinates rounded to 3 decimals pass at the default tolerance; a 5% stretch does not', () => {
    const a = Math.PI / 6; // 30°: every coordinate becomes irrational, so rounding really moves it
    const turn = ([x, y]: Point): Point => [Number((Math.cos(a) * x - Math.sin(a) * y).toFixed(3)), Number((Math.sin(a) * x + Math.cos(a) * y).toFixed(3))];
    const rounded = classic().map((p) => ({ ...p, vertices: p.vertices.map(turn) }));
    const r = verifyTangram({ outline: SQUARE.outline.map(turn) }, answer(rounded));
    expect(r.success).toBe(true);
    expect(r.iou).toBeGreaterThan(0.995);
    const stretched = classic().map((p) => ({ ...p, vertices: p.vertices.map(([x, y]) => [x * 1.05, y] as Point) }));
    const s = verifyTangram(SQUARE, answer(stretched));
    expect(s.rigidError).toBe(true);
    expect(s.problems.filter((m) => m.includes('stretched'))).toHaveLength(7);
  });
});

describe('verifyTangram: crossed pieces', () => {
  it('a bow-tie piece is a rigid error, and its overlap with a neighbour is still found', () => {
    // square F written in bow-tie order, shifted so that one lobe covers part of small triangle E
    const r = verifyTangram(SQUARE, answer(moved(classic(), 'F', [[0.5, 0.25], [1, 0.25], [0.75, 0.5], [0.75, 0]])));
    expect(r.rigidError).toBe(true);
    expect(r.overlapError).toBe(true);
    expect(r.problems.some((p) => p.startsWith('piece E (small_triangle) and piece F (square) overlap'))).toBe(true);
  });
});
