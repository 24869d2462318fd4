import { badInput } from '../../domain/errors.ts';
import type { GridTruth } from '../../domain/grid.ts';
import { expectedCellDistance } from './baseline.ts';
import { FIT, type IndexedTruth, indexTruth } from './indexed.ts';
import { type GridAnswerStatus, parsePlacement } from './parse.ts';
import type { Placement } from './placement.ts';

/** The document of `assay score grid` (design §3). Metric definitions: design §2.2 and README. */
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
  /** null when the truth has no edges. */
  shapeCompatibility: number | null;
  byPosition: { corner: number | null; edge: number | null; interior: number | null };
}

export interface ScoreGridOptions {
  /** Clue mode: ids given in place, excluded from direct and byPosition. */
  given?: readonly string[];
}

type PositionClass = 'corner' | 'edge' | 'interior';
const CLASSES: readonly PositionClass[] = ['corner', 'edge', 'interior'];

function positionClass(rows: number, cols: number, r: number, c: number): PositionClass {
  const borderRows = (r === 0 ? 1 : 0) + (r === rows - 1 ? 1 : 0);
  const borderCols = (c === 0 ? 1 : 0) + (c === cols - 1 ? 1 : 0);
  // In a 1×N strip both ends are corners (three flat sides) and the rest are edges.
  if (borderRows > 0 && borderCols > 0) return 'corner';
  return borderRows > 0 || borderCols > 0 ? 'edge' : 'interior';
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
  const hit = { corner: 0, edge: 0, interior: 0 };
  const total = { corner: 0, edge: 0, interior: 0 };
  for (let r = 0, k = 0; r < ix.rows; r++) {
    for (let c = 0; c < ix.cols; c++, k++) {
      if (given[k]) continue;
      const cls = positionClass(ix.rows, ix.cols, r, c);
      total[cls]++;
      if (p && p.piecePos[k] === k) hit[cls]++;
    }
  }
  const scored = total.corner + total.edge + total.interior;
  const direct = (hit.corner + hit.edge + hit.interior) / scored;
  const byPosition = Object.fromEntries(CLASSES.map((k) => [k, total[k] === 0 ? null : hit[k] / total[k]])) as GridScore['byPosition'];
  return { direct, byPosition };
}

/** neighbour, adjacency and proximity in one pass over the truth pairs H ∪ V. */
function pairScores(ix: IndexedTruth, p: Placement | null) {
  const { rows: R, cols: C, n } = ix;
  const m = R * (C - 1) + C * (R - 1);
  const E = expectedCellDistance(R, C);
  const proximityDefined = E !== null && E > 1;
  if (m === 0) return { neighbour: null, adjacency: null, proximity: null };
  if (!p) return { neighbour: 0, adjacency: 0, proximity: proximityDefined ? 0 : null };
  const pos = p.piecePos;
  let neighbour = 0;
  let adjacent = 0;
  let distance = 0;
  const pair = (a: number, b: number, right: boolean) => {
    const pa = pos[a]!;
    const pb = pos[b]!;
    if (pa < 0 || pb < 0) {
      distance += E ?? 0;
      return;
    }
    const ra = Math.floor(pa / C);
    const rb = Math.floor(pb / C);
    const ca = pa - ra * C;
    const cb = pb - rb * C;
    const d = Math.abs(ra - rb) + Math.abs(ca - cb);
    distance += d;
    if (d === 1) {
      adjacent++;
      if (right ? rb === ra && cb === ca + 1 : cb === ca && rb === ra + 1) neighbour++;
    }
  };
  for (let k = 0; k < n; k++) {
    if ((k + 1) % C !== 0) pair(k, k + 1, true);
    if (k + C < n) pair(k, k + C, false);
  }
  return {
    neighbour: neighbour / m,
    adjacency: adjacent / m,
    proximity: proximityDefined ? (E! - distance / m) / (E! - 1) : null,
  };
}

/** Share of the predicted grid's internal edges, both cells filled, whose facing sides are tab–blank. */
function shapeScore(ix: IndexedTruth, p: Placement | null): number | null {
  const edges = ix.edges;
  if (!edges) return null;
  if (!p) return 0;
  const { rows: R, cols: C } = ix;
  const cells = p.cellPiece;
  let fit = 0;
  let total = 0;
  for (let r = 0, k = 0; r < R; r++) {
    for (let c = 0; c < C; c++, k++) {
      const a = cells[k]!;
      if (a < 0) continue;
      if (c < C - 1 && cells[k + 1]! >= 0) {
        total++;
        if (edges[a * 4 + 1]! + edges[cells[k + 1]! * 4 + 3]! === FIT) fit++;
      }
      if (r < R - 1 && cells[k + C]! >= 0) {
        total++;
        if (edges[a * 4 + 2]! + edges[cells[k + C]! * 4]! === FIT) fit++;
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
