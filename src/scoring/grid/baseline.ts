import { mulberry32, shuffleInPlace } from '../../stats/random.ts';
import { EDGE_CODE, FIT } from './indexed.ts';

/**
 * Expected values of the grid metrics under a uniformly random permutation of the pieces
 * (design §2.2), and E, the expected Manhattan distance between two distinct uniformly random cells.
 * Grids too small for a metric give null: a 1×1 grid has no neighbour pairs; in 1×2 and 2×1 every
 * two cells are adjacent, so E = 1 and proximity's scale (E − 1) is zero.
 */

const pairsOf = (rows: number, cols: number) => rows * (cols - 1) + cols * (rows - 1);

/** E as an integer fraction num/den, so proximity can be formed with a single rounding. */
export function expectedCellDistanceFraction(rows: number, cols: number): { num: number; den: number } | null {
  const n = rows * cols;
  if (n < 2) return null;
  return { num: cols * cols * (rows ** 3 - rows) + rows * rows * (cols ** 3 - cols), den: 3 * n * (n - 1) };
}

/** E = [C²(R³−R) + R²(C³−C)] / [3·n(n−1)]; null when n < 2 (no two distinct cells). */
export function expectedCellDistance(rows: number, cols: number): number | null {
  const f = expectedCellDistanceFraction(rows, cols);
  return f && f.num / f.den;
}

export interface GridBaseline {
  direct: number;
  neighbour: number | null;
  adjacency: number | null;
  proximity: number | null;
  shapeCompatibility: number | null;
}

export interface GridBaselineOptions {
  /** Estimate shapeCompatibility (Monte Carlo); otherwise it is null. */
  shapes?: boolean;
  trials?: number;
  seed?: number;
}

export const DEFAULT_SEED = 1;

/**
 * Default Monte Carlo trials: enough internal edges in total (≥ 250,000) for a standard error of
 * about 0.001, so small grids get many trials and large ones (whose single trials vary little) few;
 * clamped to [100, 10,000].
 */
export function defaultTrials(rows: number, cols: number): number {
  const m = pairsOf(rows, cols);
  return m === 0 ? 100 : Math.min(10_000, Math.max(100, Math.ceil(250_000 / m)));
}

export function gridBaseline(rows: number, cols: number, opts: GridBaselineOptions = {}): GridBaseline {
  const n = rows * cols;
  const m = pairsOf(rows, cols);
  const nn1 = n * (n - 1);
  const h = rows * (cols - 1);
  const v = cols * (rows - 1);
  const E = expectedCellDistance(rows, cols);
  return {
    direct: 1 / n,
    neighbour: m === 0 ? null : (h * h + v * v) / (m * nn1),
    adjacency: m === 0 ? null : (2 * m) / nn1,
    proximity: E === null || E <= 1 ? null : 0,
    shapeCompatibility: opts.shapes
      ? shapeCompatibilityMonteCarlo(rows, cols, opts.trials ?? defaultTrials(rows, cols), opts.seed ?? DEFAULT_SEED)
      : null,
  };
}

/**
 * Exact expected shapeCompatibility of a random permutation of a random jigsaw (no rotation; each
 * internal edge a tab–blank pair of random direction; border edges flat). For the facing sides of an
 * internal edge the two pieces are a uniform ordered pair of distinct pieces: they fit surely when
 * they are true neighbours in that order, with probability 1/2 when both sides are non-flat
 * otherwise (independent edges), and never when a side is flat.
 */
export function shapeCompatibilityExact(rows: number, cols: number): number | null {
  const m = pairsOf(rows, cols);
  if (m === 0) return null;
  const n = rows * cols;
  // Horizontal: left piece not in the last column, right piece not in the first column.
  const side = (lines: number, len: number) => {
    const nonFlat = n - lines;
    const both = lines * Math.max(len - 2, 0);
    const trueNeighbours = lines * (len - 1);
    return (trueNeighbours + (nonFlat * nonFlat - both - trueNeighbours) / 2) / (n * (n - 1));
  };
  const h = rows * (cols - 1);
  const v = cols * (rows - 1);
  return (h * (h > 0 ? side(rows, cols) : 0) + v * (v > 0 ? side(cols, rows) : 0)) / m;
}

/** Monte Carlo over random edge polarities and random permutations; seeded, so reproducible. */
export function shapeCompatibilityMonteCarlo(rows: number, cols: number, trials: number, seed: number): number | null {
  const m = pairsOf(rows, cols);
  if (m === 0) return null;
  const n = rows * cols;
  const rng = mulberry32(seed);
  const TAB = EDGE_CODE.tab;
  const BLANK = EDGE_CODE.blank;
  const FITS = FIT; // locals: imported bindings compile to getter calls in these hot loops
  // Border sides stay flat (0) for every trial; only internal sides are redrawn.
  const edges = new Uint8Array(n * 4);
  const order = Array.from({ length: n }, (_, k) => k);
  let sum = 0;
  for (let t = 0; t < trials; t++) {
    for (let r = 0, k = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++, k++) {
        if (c < cols - 1) {
          const tab = rng() < 0.5;
          edges[k * 4 + 1] = tab ? TAB : BLANK;
          edges[(k + 1) * 4 + 3] = tab ? BLANK : TAB;
        }
        if (r < rows - 1) {
          const tab = rng() < 0.5;
          edges[k * 4 + 2] = tab ? TAB : BLANK;
          edges[(k + cols) * 4] = tab ? BLANK : TAB;
        }
      }
    }
    shuffleInPlace(order, rng);
    let fit = 0;
    for (let r = 0, cell = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++, cell++) {
        const p = order[cell]! * 4;
        if (c < cols - 1 && edges[p + 1]! + edges[order[cell + 1]! * 4 + 3]! === FITS) fit++;
        if (r < rows - 1 && edges[p + 2]! + edges[order[cell + cols]! * 4]! === FITS) fit++;
      }
    }
    sum += fit / m;
  }
  return sum / trials;
}
