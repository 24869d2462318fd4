import { badInput } from '../../domain/errors.ts';
import type { GridTruth } from '../../domain/grid.ts';
import { expectedCellDistanceFraction } from './baseline.ts';
import { FIT, type IndexedTruth, indexTruth } from './indexed.ts';
import { type GridAnswerStatus, parsePlacement } from './parse.ts';
import type { Placement } from './placement.ts';

/** The document of `assay score grid` (design §3). Metric definitions: docs/grid-scoring.md ("The metrics"). */
export interface GridScore {
  status: GridAnswerStatus;
  problems: string[];
  direct: number;
  exactMatch: number;
  /** null only for a 1×1 grid (no neighbour pairs). */
  neighbour: number | null;
  adjacency: number | null;
  /** null for 1×1, 1×2 and 2×1 grids (E ≤ 1). Range [(E − (R+C−2))/(E − 1), 1]; random ≈ 0. */
  proximity: number | null;
  /** null when the truth has no edges or the grid has no internal edge (1×1). */
  shapeCompatibility: number | null;
  byPosition: { corner: number | null; edge: number | null; interior: number | null };
}

export interface ScoreGridOptions {
  /** Clue mode: ids given in place, excluded from direct and byPosition. */
  given?: readonly string[];
}

/** 0 corner, 1 edge, 2 interior. In a 1×N strip both ends are corners (three flat sides). */
function positionClass(rows: number, cols: number, r: number, c: number): number {
  const borderRow = r === 0 || r === rows - 1;
  const borderCol = c === 0 || c === cols - 1;
  return borderRow && borderCol ? 0 : borderRow || borderCol ? 1 : 2;
}

/** Validates clue-mode ids against the truth; `where` names the file or field in the error. */
export function givenMask(ix: IndexedTruth, given: readonly string[], where = 'given'): Uint8Array {
  const mask = new Uint8Array(ix.n);
  for (const id of given) {
    const piece = ix.index.get(id);
    if (piece === undefined) throw badInput(`${where}: unknown piece id '${id}'`);
    if (mask[piece]) throw badInput(`${where}: piece id '${id}' is listed twice`);
    mask[piece] = 1;
  }
  if (given.length === ix.n && ix.n > 0) throw badInput(`${where}: every piece is given, so nothing is left to score`);
  return mask;
}

function directScores(ix: IndexedTruth, p: Placement | null, given: Uint8Array) {
  const hit = [0, 0, 0];
  const total = [0, 0, 0];
  for (let r = 0, k = 0; r < ix.rows; r++) {
    for (let c = 0; c < ix.cols; c++, k++) {
      if (given[k]) continue;
      const cls = positionClass(ix.rows, ix.cols, r, c);
      total[cls] = total[cls]! + 1;
      if (p && p.piecePos[k] === k) hit[cls] = hit[cls]! + 1;
    }
  }
  const scored = total[0]! + total[1]! + total[2]!;
  const direct = (hit[0]! + hit[1]! + hit[2]!) / scored;
  const share = (i: number) => (total[i] === 0 ? null : hit[i]! / total[i]!);
  const byPosition = { corner: share(0), edge: share(1), interior: share(2) };
  return { direct, byPosition };
}

/** neighbour, adjacency and proximity in one pass over the truth pairs H ∪ V. */
function pairScores(ix: IndexedTruth, p: Placement | null) {
  const { rows: R, cols: C, n } = ix;
  const m = R * (C - 1) + C * (R - 1);
  const E = expectedCellDistanceFraction(R, C);
  const proximityDefined = E !== null && E.num > E.den;
  if (m === 0) return { neighbour: null, adjacency: null, proximity: null };
  if (!p) return { neighbour: 0, adjacency: 0, proximity: proximityDefined ? 0 : null };
  // Predicted row and column of every piece, computed once (-1 = unplaced).
  const row = new Int32Array(n);
  const col = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const at = p.piecePos[k]!;
    row[k] = at < 0 ? -1 : Math.floor(at / C);
    col[k] = at < 0 ? -1 : at - row[k]! * C;
  }
  let neighbour = 0;
  let adjacent = 0;
  let distance = 0;
  let unplacedPairs = 0;
  for (let r = 0, a = 0; r < R; r++) {
    for (let c = 0; c < C; c++, a++) {
      const ra = row[a]!;
      const ca = col[a]!;
      // b = right-hand neighbour (in order: same row, next column), then the one below.
      for (let dir = 0; dir < 2; dir++) {
        if (dir === 0 ? c === C - 1 : r === R - 1) continue;
        const b = dir === 0 ? a + 1 : a + C;
        const rb = row[b]!;
        if (ra < 0 || rb < 0) {
          unplacedPairs++;
          continue;
        }
        const dr = rb - ra;
        const dc = col[b]! - ca;
        const d = Math.abs(dr) + Math.abs(dc);
        distance += d;
        if (d === 1) {
          adjacent++;
          if (dir === 0 ? dc === 1 : dr === 1) neighbour++;
        }
      }
    }
  }
  return {
    neighbour: neighbour / m,
    adjacency: adjacent / m,
    // (E − d̄)/(E − 1) with E = num/den and d̄ = (distance + unplaced·E)/m (a pair with an unplaced
    // piece counts as E, design §2.2), multiplied out so that only the final division rounds.
    proximity: proximityDefined ? (E!.num * m - distance * E!.den - unplacedPairs * E!.num) / ((E!.num - E!.den) * m) : null,
  };
}

/** Share of the predicted grid's internal edges, both cells filled, whose facing sides are tab–blank. */
function shapeScore(ix: IndexedTruth, p: Placement | null): number | null {
  const edges = ix.edges;
  const { rows: R, cols: C } = ix;
  if (!edges || R * C === 1) return null;
  if (!p) return 0;
  const cells = p.cellPiece;
  const FITS = FIT; // a local: imported bindings compile to getter calls in this hot loop
  let fit = 0;
  let total = 0;
  for (let r = 0, k = 0; r < R; r++) {
    for (let c = 0; c < C; c++, k++) {
      const a = cells[k]!;
      if (a < 0) continue;
      if (c < C - 1 && cells[k + 1]! >= 0) {
        total++;
        if (edges[a * 4 + 1]! + edges[cells[k + 1]! * 4 + 3]! === FITS) fit++;
      }
      if (r < R - 1 && cells[k + C]! >= 0) {
        total++;
        if (edges[a * 4 + 2]! + edges[cells[k + C]! * 4]! === FITS) fit++;
      }
    }
  }
  // No two filled cells side by side: nothing fits, which must not read as "undefined".
  return total === 0 ? 0 : fit / total;
}

/** Scores one answer against a truth (design §2.2). Never throws on the answer; throws badInput for bad `given`. */
export function scoreGrid(truth: GridTruth, answer: string, opts: ScoreGridOptions = {}): GridScore {
  const ix = indexTruth(truth);
  const given = givenMask(ix, opts.given ?? []);
  const parsed = parsePlacement(ix, answer);
  const p = parsed.placement;
  const { direct, byPosition } = directScores(ix, p, given);
  return {
    status: parsed.status,
    problems: parsed.problems,
    direct,
    exactMatch: direct === 1 ? 1 : 0,
    ...pairScores(ix, p),
    shapeCompatibility: shapeScore(ix, p),
    byPosition,
  };
}
