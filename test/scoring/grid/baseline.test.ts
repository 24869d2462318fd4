import { describe, expect, it } from 'vitest';
import {
  defaultTrials,
  expectedCellDistance,
  gridBaseline,
  scoreGrid,
  shapeCompatibilityExact,
  shapeCompatibilityMonteCarlo,
} from '../../../src/scoring/grid/index.ts';
import { parseGridTruth } from '../../../src/domain/grid.ts';
import { gridText, numberedTruth } from './helpers.ts';

/** Every permutation of 0..n-1 (n ≤ 7 in these tests). */
function* permutations(n: number): Generator<number[]> {
  const a = Array.from({ length: n }, (_, i) => i);
  const c = new Array(n).fill(0);
  yield [...a];
  let i = 0;
  while (i < n) {
    if (c[i] < i) {
      const j = i % 2 === 0 ? 0 : c[i];
      [a[i], a[j]] = [a[j]!, a[i]!];
      yield [...a];
      c[i]++;
      i = 0;
    } else c[i++] = 0;
  }
}

describe('E, the expected distance between two distinct random cells', () => {
  it.each([
    [1, 2],
    [1, 5],
    [2, 2],
    [3, 3],
    [2, 7],
    [6, 9],
    [5, 1],
  ])('%i×%i matches a brute-force mean over all cell pairs', (R, C) => {
    let sum = 0;
    let count = 0;
    for (let a = 0; a < R * C; a++)
      for (let b = 0; b < R * C; b++)
        if (a !== b) {
          sum += Math.abs(Math.floor(a / C) - Math.floor(b / C)) + Math.abs((a % C) - (b % C));
          count++;
        }
    expect(expectedCellDistance(R, C)).toBeCloseTo(sum / count, 12);
  });
  it('is null for a single cell and (C+1)/3 on a strip', () => {
    expect(expectedCellDistance(1, 1)).toBeNull();
    expect(expectedCellDistance(1, 8)).toBeCloseTo(3, 12);
    expect(expectedCellDistance(6, 9)).toBe(5);
  });
});

describe('closed-form baselines', () => {
  it.each([
    [2, 2],
    [2, 3],
    [1, 5],
    [3, 2],
  ])('%i×%i equal the exact mean over every permutation (scored by scoreGrid)', (R, C) => {
    const t = numberedTruth(R, C);
    const n = R * C;
    const sum = { direct: 0, neighbour: 0, adjacency: 0, proximity: 0 };
    let count = 0;
    for (const p of permutations(n)) {
      const s = scoreGrid(t, gridText(p.map(String), C));
      sum.direct += s.direct;
      sum.neighbour += s.neighbour!;
      sum.adjacency += s.adjacency!;
      sum.proximity += s.proximity!;
      count++;
    }
    const b = gridBaseline(R, C);
    expect(b.direct).toBeCloseTo(sum.direct / count, 12);
    expect(b.neighbour).toBeCloseTo(sum.neighbour / count, 12);
    expect(b.adjacency).toBeCloseTo(sum.adjacency / count, 12);
    expect(b.proximity).toBe(0);
    expect(sum.proximity / count).toBeCloseTo(0, 12);
    expect(b.shapeCompatibility).toBeNull();
  });

  it('N×N: neighbour 1/(N(N+1)), adjacency 4/(N(N+1)), direct 1/N²', () => {
    for (let N = 2; N <= 20; N++) {
      const b = gridBaseline(N, N);
      expect(b.neighbour).toBeCloseTo(1 / (N * (N + 1)), 14);
      expect(b.adjacency).toBeCloseTo(4 / (N * (N + 1)), 14);
      expect(b.direct).toBeCloseTo(1 / (N * N), 14);
    }
  });

  it('tiny grids: null where a metric is undefined', () => {
    expect(gridBaseline(1, 1, { shapes: true })).toEqual({ direct: 1, neighbour: null, adjacency: null, proximity: null, shapeCompatibility: null });
    expect(gridBaseline(1, 2)).toEqual({ direct: 0.5, neighbour: 0.5, adjacency: 1, proximity: null, shapeCompatibility: null });
  });
});

describe('shapeCompatibility baseline (random jigsaw, random permutation, no rotation)', () => {
  /** Exact expectation by enumerating every polarity assignment and every permutation. */
  function enumerate(R: number, C: number): number {
    const n = R * C;
    const layout = Array.from({ length: R }, (_, r) => Array.from({ length: C }, (_, c) => String(r * C + c)));
    const internal: [number, number, 'h' | 'v'][] = [];
    for (let k = 0; k < n; k++) {
      if (k % C < C - 1) internal.push([k, k + 1, 'h']);
      if (k + C < n) internal.push([k, k + C, 'v']);
    }
    const answers = [...permutations(n)].map((p) => gridText(p.map(String), C));
    let sum = 0;
    let count = 0;
    for (let mask = 0; mask < 2 ** internal.length; mask++) {
      const edges: Record<string, string[]> = {};
      for (let k = 0; k < n; k++) edges[String(k)] = ['flat', 'flat', 'flat', 'flat'];
      internal.forEach(([a, b, dir], i) => {
        const tab = (mask >> i) & 1;
        const [sa, sb] = dir === 'h' ? [1, 3] : [2, 0];
        edges[String(a)]![sa] = tab ? 'tab' : 'blank';
        edges[String(b)]![sb] = tab ? 'blank' : 'tab';
      });
      const t = parseGridTruth({ rows: R, cols: C, layout, edges }, 'enumerated');
      for (const a of answers) {
        sum += scoreGrid(t, a).shapeCompatibility!;
        count++;
      }
    }
    return sum / count;
  }

  it.each([
    [2, 2],
    [1, 4],
    [2, 3],
  ])('%i×%i closed form equals full enumeration', (R, C) => {
    expect(shapeCompatibilityExact(R, C)).toBeCloseTo(enumerate(R, C), 12);
  });

  // Published N×N figures (design §2.2), given to 0.1 percentage point.
  const PUBLISHED: [number, number][] = [
    [4, 0.308],
    [8, 0.39],
    [12, 0.423],
    [16, 0.441],
  ];
  it.each(PUBLISHED)('%i×%i: exact form reproduces %d (±0.0005, the rounding)', (N, p) => {
    expect(Math.abs(shapeCompatibilityExact(N, N)! - p)).toBeLessThanOrEqual(0.0005);
  });
  it.each(PUBLISHED)('%i×%i: seeded Monte Carlo reproduces %d (±0.005 ≈ 5 standard errors)', (N, p) => {
    const b = gridBaseline(N, N, { shapes: true, seed: 11 });
    expect(Math.abs(b.shapeCompatibility! - p)).toBeLessThanOrEqual(0.005);
  });

  it('Monte Carlo converges to the exact form on non-square grids and is reproducible', () => {
    for (const [R, C] of [
      [3, 7],
      [1, 9],
      [6, 2],
    ] as const) {
      const mc = shapeCompatibilityMonteCarlo(R, C, defaultTrials(R, C), 5)!;
      expect(Math.abs(mc - shapeCompatibilityExact(R, C)!)).toBeLessThanOrEqual(0.005);
    }
    expect(shapeCompatibilityMonteCarlo(5, 5, 300, 9)).toBe(shapeCompatibilityMonteCarlo(5, 5, 300, 9));
    expect(shapeCompatibilityMonteCarlo(5, 5, 300, 9)).not.toBe(shapeCompatibilityMonteCarlo(5, 5, 300, 10));
  });

  it('default trials give about 250,000 edges in total, within [100, 10,000]', () => {
    expect(defaultTrials(4, 4)).toBe(10_000);
    expect(defaultTrials(16, 16)).toBe(Math.ceil(250_000 / 480));
    expect(defaultTrials(100, 100)).toBe(100);
  });
});
