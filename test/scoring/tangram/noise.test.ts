import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { multiArea, unionOf } from '../../../src/scoring/tangram/clip.ts';
import { parseTangramAnswer } from '../../../src/scoring/tangram/parse.ts';
import { CLASSIC_SQUARE, type Point } from '../../../src/scoring/tangram/pieces.ts';
import { area } from '../../../src/scoring/tangram/polygon.ts';
import { cleanNoise, noiseOf, snapRings } from '../../../src/scoring/tangram/snap.ts';
import { verifyTangram } from '../../../src/scoring/tangram/verify.ts';
import { FIXTURES } from '../../helpers/cli.ts';

/**
 * Issue 11, finding 11a: a valid assembly turned by a float angle together with its target scored
 * Hausdorff 0.25 (the union kept pieces apart along T-junctions, so the "boundary" ran through the
 * figure) or failed to clip at all. The geometry now works in a shared noise frame (src/scoring/tangram/snap.ts).
 */

const fixture = (name: string) => readFileSync(`${FIXTURES}tangram/${name}`, 'utf8');
const SQUARE_TARGET = JSON.parse(fixture('square.target.json')) as { outline: Point[] };

interface Assembly {
  name: string;
  outline: Point[];
  pieces: { id: string; type: string; vertices: Point[] }[];
}

/** Every successful answer among the fixtures, read into vertices (the light form placed), with its target. */
function validAssemblies(): Assembly[] {
  const answers: { name: string; text: string; target: { outline: unknown[] } }[] = [
    { name: 'square.answer.txt', text: fixture('square.answer.txt'), target: SQUARE_TARGET },
    { name: 'square.light.answer.txt', text: fixture('square.light.answer.txt'), target: SQUARE_TARGET },
    ...fixture('answers.jsonl')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; response: string; target?: { outline: unknown[] } })
      .map((r) => ({ name: `answers.jsonl ${r.id}`, text: r.response, target: r.target ?? SQUARE_TARGET })),
  ];
  return answers
    .filter((a) => verifyTangram(a.target, a.text).success)
    .map((a) => {
      const outline = a.target.outline as Point[];
      expect(outline.flat().every((c) => typeof c === 'number')).toBe(true);
      const pieces = parseTangramAnswer(a.text).pieces!.map((p) => ({ id: p.id, type: p.type, vertices: p.vertices }));
      return { name: a.name, outline, pieces };
    });
}

const ASSEMBLIES = validAssemblies();

const rigidMotion = (radians: number, reflect: boolean, dx: number, dy: number) => ([x, y0]: Point): Point => {
  const y = reflect ? -y0 : y0;
  return [Math.cos(radians) * x - Math.sin(radians) * y + dx, Math.sin(radians) * x + Math.cos(radians) * y + dy];
};

const moveAll = (a: Assembly, f: (p: Point) => Point) => ({
  target: { outline: a.outline.map(f) },
  text: JSON.stringify({ pieces: a.pieces.map((p) => ({ ...p, vertices: p.vertices.map(f) })) }),
  rings: a.pieces.map((p) => p.vertices.map(f)),
});

/** Σ piece areas − area of their union: 0 for pieces that only share edges. */
function overlapExcess(rings: Point[][], outline: Point[]): number {
  const noise = noiseOf([outline, ...rings]);
  const [, ...snapped] = snapRings([outline, ...rings], noise);
  return snapped.reduce((s, r) => s + area(r), 0) - multiArea(unionOf(snapped, noise.grid));
}

// Uniform draws (fc.double leans towards tiny magnitudes, where a turn is almost the identity).
const angle = fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((k) => (k / 2 ** 31) * 2 * Math.PI);
const shift = (range: number) => fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((k) => (k / 2 ** 31) * range);

describe('tangram geometry under floating-point noise', () => {
  it('the fixtures hold valid assemblies to move (both targets)', () => {
    expect(ASSEMBLIES.map((a) => a.name)).toEqual(
      expect.arrayContaining(['square.answer.txt', 'square.light.answer.txt', 'answers.jsonl sq-1', 'answers.jsonl hex-1']),
    );
  });

  it('the issue example: the classic square turned by 0.7 rad and shifted by (1, 2) has Hausdorff 0, not 0.25', () => {
    const square = { name: 'classic', outline: SQUARE_TARGET.outline, pieces: CLASSIC_SQUARE.map((p, i) => ({ id: String(i), ...p })) };
    const m = moveAll(square, rigidMotion(0.7, false, 1, 2));
    const r = verifyTangram(m.target, m.text);
    expect(r.problems).toEqual([]);
    expect(r.hausdorff).toBeLessThan(1e-9);
    expect(r.iou).toBeCloseTo(1, 9);
    expect(r.success).toBe(true);
    // turned by 0.1 rad and by 2.5 rad about the origin: Hausdorff 0.5, and a clipping failure, before
    for (const [rad, dx, dy] of [[0.1, 0, 0], [2.5, 1, 2], [0.7, 0, 0]] as const) {
      const t = moveAll(square, rigidMotion(rad, false, dx, dy));
      const v = verifyTangram(t.target, t.text);
      expect([rad, v.problems, v.success]).toEqual([rad, [], true]);
      expect(v.hausdorff).toBeLessThan(1e-9);
    }
  });

  it('random rotations, reflections and translations of every valid fixture assembly: success, Hausdorff ≈ 0, IoU ≈ 1, overlap ≈ 0 (fast-check)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ASSEMBLIES), angle, fc.boolean(), shift(1000), shift(1000), (a, rad, reflect, dx, dy) => {
        const m = moveAll(a, rigidMotion(rad, reflect, dx, dy));
        const r = verifyTangram(m.target, m.text);
        expect(r.problems).toEqual([]);
        expect(r.success).toBe(true);
        expect(r.overlapError).toBe(false);
        expect(r.hausdorff).toBeLessThan(1e-9);
        expect(Math.abs(r.iou! - 1)).toBeLessThan(1e-9);
        expect(Math.abs(overlapExcess(m.rings, m.target.outline))).toBeLessThan(1e-9);
      }),
      { numRuns: 150 },
    );
  });

  it('far from the origin (shifts up to 1e5) the same holds', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ASSEMBLIES), angle, fc.boolean(), shift(1e5), shift(1e5), (a, rad, reflect, dx, dy) => {
        const m = moveAll(a, rigidMotion(rad, reflect, dx, dy));
        const r = verifyTangram(m.target, m.text);
        expect(r.problems).toEqual([]);
        expect(r.hausdorff).toBeLessThan(1e-9);
        expect(Math.abs(r.iou! - 1)).toBeLessThan(1e-9);
      }),
      { numRuns: 40 },
    );
  });

  it('a real defect still counts under a turn: the medium triangle moved off by 0.1 keeps its Hausdorff', () => {
    const square = { name: 'classic', outline: SQUARE_TARGET.outline, pieces: CLASSIC_SQUARE.map((p, i) => ({ id: String(i), ...p })) };
    const shifted = { ...square, pieces: square.pieces.map((p, i) => (i === 2 ? { ...p, vertices: p.vertices.map(([x, y]) => [x + 0.1, y] as Point) } : p)) };
    const flat = verifyTangram({ outline: square.outline }, JSON.stringify({ pieces: shifted.pieces }));
    const m = moveAll(shifted, rigidMotion(0.7, false, 1, 2));
    const turned = verifyTangram(m.target, m.text);
    expect(flat.hausdorff).toBeGreaterThan(0.09);
    expect(turned.hausdorff).toBeCloseTo(flat.hausdorff!, 9);
    expect(turned.iou).toBeCloseTo(flat.iou!, 9);
  });
});

describe('snap.ts: the noise frame', () => {
  it('ε is 1e-9 of the figure size (1e-9 for the unit square), at least 1e-13 of the largest coordinate', () => {
    expect(noiseOf([[[0, 0], [1, 0], [1, 1], [0, 1]]]).eps).toBe(1e-9);
    expect(noiseOf([[[0, 0], [10, 0], [0, 5]]]).eps).toBeCloseTo(1e-8, 20);
    expect(noiseOf([[[1e6, 1e6], [1e6 + 1, 1e6], [1e6, 1e6 + 1]]]).eps).toBeCloseTo(1e-7, 12);
    const { grid, eps } = noiseOf([[[0, 0], [1, 0], [1, 1]]]);
    expect(Number.isInteger(Math.log2(grid))).toBe(true);
    expect(grid).toBeLessThanOrEqual(eps / 64);
  });

  it('merges corners within ε and splits an edge at a vertex that lies within ε of it', () => {
    const noise = noiseOf([[[0, 0], [1, 0], [1, 1]]]);
    const [a, b] = snapRings(
      [
        [[0, 0], [1, 0], [0, 1]],
        [[1 + 3e-10, 1e-16], [1, 1], [0.5, 0.5 + 2e-10]], // (0.5, 0.5) is on a's hypotenuse
      ],
      noise,
    );
    expect(b![0]).toBe(a![1]); // the same point object: merged
    expect(a).toHaveLength(4); // hypotenuse split at b's corner
    expect(a![2]).toBe(b![2]);
  });

  it('leaves visible offsets alone: a corner 1e-6 away is not merged', () => {
    const noise = noiseOf([[[0, 0], [1, 0], [1, 1]]]);
    const [a, b] = snapRings([[[0, 0], [1, 0], [0, 1]], [[1 + 1e-6, 0], [1, 1], [0.6, 0.6]]], noise);
    expect(b![0]).toEqual([1 + 1e-6, 0].map((c) => Math.round(c / noise.grid) * noise.grid));
    expect(a).toHaveLength(3);
  });

  it('cleanNoise drops collinear points and zero-width spikes, and slivers below ε·L of area', () => {
    const noise = noiseOf([[[0, 0], [1, 0], [1, 1], [0, 1]]]);
    const spiky: Point[] = [[0, 0], [0.5, 0], [0.5, 0.5], [0.5, 1e-12], [1, 0], [1, 1], [0, 1]];
    expect(cleanNoise(spiky, noise)).toEqual([[0, 0], [1, 0], [1, 1], [0, 1]]);
    expect(cleanNoise([[0, 0], [1, 0], [1, 5e-10]], noise)).toBeNull();
    expect(cleanNoise([[0, 0], [1, 0], [1, 0.01]], noise)).toEqual([[0, 0], [1, 0], [1, 0.01]]);
  });
});
