import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GridTruth, parseGridTruth } from '../../../src/domain/grid.ts';
import { expectedCellDistance, gridBaseline, scoreGrid } from '../../../src/scoring/grid/index.ts';
import { mulberry32, shuffleInPlace } from '../../../src/stats/random.ts';
import { gridText } from './helpers.ts';

/** A random R×C jigsaw truth: distinct ids, each internal edge a random tab–blank pair, border flat. */
const truthArb = (maxSide = 8) =>
  fc
    .record({
      rows: fc.integer({ min: 1, max: maxSide }),
      cols: fc.integer({ min: 1, max: maxSide }),
      seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      numeric: fc.boolean(),
    })
    .map(({ rows, cols, seed, numeric }) => {
      const rng = mulberry32(seed);
      const n = rows * cols;
      const ids = shuffleInPlace(
        Array.from({ length: n }, (_, k) => (numeric ? 100 + k : `p${k}x`)),
        rng,
      );
      const sides = Array.from({ length: n }, () => ['flat', 'flat', 'flat', 'flat']);
      for (let k = 0; k < n; k++) {
        const tab = (): [string, string] => (rng() < 0.5 ? ['tab', 'blank'] : ['blank', 'tab']);
        if (k % cols < cols - 1) [sides[k]![1], sides[k + 1]![3]] = tab();
        if (k + cols < n) [sides[k]![2], sides[k + cols]![0]] = tab();
      }
      const layout = Array.from({ length: rows }, (_, r) => ids.slice(r * cols, (r + 1) * cols));
      const edges = Object.fromEntries(ids.map((id, k) => [String(id), sides[k]]));
      return parseGridTruth({ rows, cols, layout, edges }, 'generated');
    });

const flat = (t: GridTruth) => t.layout.flat();

describe('grid metric properties', () => {
  it('a perfect answer scores 1 everywhere, in every answer form (null only where undefined)', () => {
    const forms = fc.constantFrom('text', 'pipes', 'json', 'mapping');
    fc.assert(
      fc.property(truthArb(), forms, (t, form) => {
        const ids = flat(t);
        const answer =
          form === 'text'
            ? gridText(ids, t.cols)
            : form === 'pipes'
              ? `Solution:\n${gridText(ids, t.cols, ' | ')}\n`
              : form === 'json'
                ? JSON.stringify(t.layout)
                : JSON.stringify(Object.fromEntries(ids.map((id, k) => [id, [Math.floor(k / t.cols), k % t.cols]])));
        const s = scoreGrid(t, answer);
        const n = t.rows * t.cols;
        const E = expectedCellDistance(t.rows, t.cols);
        expect(s.status).toBe('valid');
        expect([s.direct, s.exactMatch, s.shapeCompatibility]).toEqual([1, 1, n > 1 ? 1 : null]);
        expect(s.neighbour).toBe(n > 1 ? 1 : null);
        expect(s.adjacency).toBe(n > 1 ? 1 : null);
        expect(s.proximity).toBe(E !== null && E > 1 ? 1 : null);
        for (const v of Object.values(s.byPosition)) expect(v === null || v === 1).toBe(true);
      }),
      { numRuns: 300, seed: 1 },
    );
  });

  it('every metric is in range for any permutation; proximity in [(E − (R+C−2))/(E − 1), 1]', () => {
    fc.assert(
      fc.property(truthArb(), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (t, seed) => {
        const ids = shuffleInPlace(flat(t), mulberry32(seed));
        const s = scoreGrid(t, gridText(ids, t.cols));
        for (const v of [s.direct, s.exactMatch, s.neighbour, s.adjacency, s.shapeCompatibility, ...Object.values(s.byPosition)]) {
          if (v !== null) expect(v >= 0 && v <= 1).toBe(true);
        }
        const E = expectedCellDistance(t.rows, t.cols);
        if (s.proximity !== null) {
          const lowest = (E! - (t.rows + t.cols - 2)) / (E! - 1);
          expect(s.proximity).toBeLessThanOrEqual(1 + 1e-12);
          expect(s.proximity).toBeGreaterThanOrEqual(lowest - 1e-12);
        }
        // exactMatch is 1 exactly when every piece is home
        expect(s.exactMatch).toBe(ids.every((id, k) => id === flat(t)[k]) ? 1 : 0);
      }),
      { numRuns: 400, seed: 2 },
    );
  });

  it('JSON numbers are stringified: a numeric answer scores exactly as the same answer in strings', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (rows, cols, seed) => {
          const rng = mulberry32(seed);
          const nums = shuffleInPlace(Array.from({ length: rows * cols }, (_, k) => 7 * k + 1), rng);
          const layout = Array.from({ length: rows }, (_, r) => nums.slice(r * cols, (r + 1) * cols));
          const t = parseGridTruth({ rows, cols, layout }, 'numeric');
          expect(t.layout.flat()).toEqual(nums.map(String));
          const answer = layout.map((row) => shuffleInPlace([...row], rng));
          const asStrings = scoreGrid(t, JSON.stringify(answer.map((row) => row.map(String))));
          expect(scoreGrid(t, JSON.stringify(answer))).toEqual(asStrings);
          expect(asStrings.status).toBe('valid');
        },
      ),
      { numRuns: 200, seed: 5 },
    );
  });

  it('shifting the whole picture one column (wrapping) keeps neighbour at 1 − R/m while direct drops to 0', () => {
    fc.assert(
      fc.property(truthArb(10).filter((t) => t.cols >= 2), (t) => {
        const shifted = t.layout.map((row) => [...row.slice(1), row[0]!]);
        const s = scoreGrid(t, JSON.stringify(shifted));
        const m = t.rows * (t.cols - 1) + t.cols * (t.rows - 1);
        expect(s.direct).toBe(0);
        expect(s.neighbour).toBeCloseTo(1 - t.rows / m, 12);
        // the adjacency of the broken pairs survives only when the wrap is a single step (C = 2)
        expect(s.adjacency).toBeCloseTo(t.cols === 2 ? 1 : 1 - t.rows / m, 12);
      }),
      { numRuns: 200, seed: 3 },
    );
  });

  it.each([
    [5, 7],
    [3, 8],
    [6, 6],
  ])('%i×%i: the mean over 3000 seeded random permutations is within 5 standard errors of the closed forms', (R, C) => {
    const t = parseGridTruth(
      { rows: R, cols: C, layout: Array.from({ length: R }, (_, r) => Array.from({ length: C }, (_, c) => `k${r}_${c}`)) },
      'T',
    );
    const rng = mulberry32(R * 100 + C);
    const ids = flat(t);
    const keys = ['direct', 'neighbour', 'adjacency', 'proximity'] as const;
    const samples: Record<(typeof keys)[number], number[]> = { direct: [], neighbour: [], adjacency: [], proximity: [] };
    for (let i = 0; i < 3000; i++) {
      const s = scoreGrid(t, gridText(shuffleInPlace(ids, rng), C));
      for (const k of keys) samples[k].push(s[k]!);
    }
    const b = gridBaseline(R, C);
    for (const k of keys) {
      const xs = samples[k];
      const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
      expect(Math.abs(mean - b[k]!), k).toBeLessThanOrEqual(5 * (sd / Math.sqrt(xs.length)) + 1e-9);
    }
  });
});
