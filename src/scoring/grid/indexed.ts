import type { EdgeKind, GridTruth } from '../../domain/grid.ts';
import { IdLookup } from './id-lookup.ts';

/**
 * A truth prepared for linear-time scoring: piece k is the piece whose true cell is k (row-major),
 * so "is piece k in its true cell" is one comparison and every lookup is an array index.
 */
export interface IndexedTruth {
  readonly rows: number;
  readonly cols: number;
  readonly n: number;
  /** ids[k] = id of the piece whose true cell is k. */
  readonly ids: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  /** The same index, for ids inside a longer string (text answers). */
  readonly lookup: IdLookup;
  /** 4 codes per piece (top, right, bottom, left); null when the truth has no edges. */
  readonly edges: Uint8Array | null;
  /** Whether some id holds ':' (then a ':' in a text line does not mark it as prose). */
  readonly colonIds: boolean;
}

/** Codes chosen so that two facing edges fit exactly when their codes sum to FIT. */
export const EDGE_CODE: Readonly<Record<EdgeKind, number>> = { flat: 0, tab: 1, blank: 2 };
export const FIT = EDGE_CODE.tab + EDGE_CODE.blank;

// Scoring many answers against one truth (benchmarks, batch runs) should not rebuild its index.
const cache = new WeakMap<GridTruth, IndexedTruth>();

export function indexTruth(truth: GridTruth): IndexedTruth {
  const hit = cache.get(truth);
  if (hit) return hit;
  const { rows, cols } = truth;
  const ids = truth.layout.flat();
  const index = new Map<string, number>();
  ids.forEach((id, k) => index.set(id, k));
  let edges: Uint8Array | null = null;
  if (truth.edges) {
    edges = new Uint8Array(ids.length * 4);
    ids.forEach((id, k) => {
      const e = truth.edges![id]!;
      for (let s = 0; s < 4; s++) edges![k * 4 + s] = EDGE_CODE[e[s]!];
    });
  }
  const ix: IndexedTruth = { rows, cols, n: ids.length, ids, index, lookup: new IdLookup(ids), edges, colonIds: ids.some((id) => id.includes(':')) };
  cache.set(truth, ix);
  return ix;
}
