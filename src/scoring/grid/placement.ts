import type { IndexedTruth } from './indexed.ts';

/**
 * A predicted placement: cellPiece[cell] = piece index or -1 (blank); piecePos[piece] = cell or -1
 * (unplaced). Both directions are kept so every metric is a single pass over the grid.
 */
export interface Placement {
  readonly cellPiece: Int32Array;
  readonly piecePos: Int32Array;
}

/** Problems are capped so a hopeless 100×100 answer yields a readable list, not ten thousand lines. */
export const MAX_PROBLEMS = 50;

export class Problems {
  readonly list: string[] = [];
  private overflow = 0;
  add(message: string): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push(message);
    else this.overflow++;
  }
  get count(): number {
    return this.list.length + this.overflow;
  }
  finish(): string[] {
    return this.overflow > 0 ? [...this.list, `… and ${this.overflow} more problem${this.overflow === 1 ? '' : 's'}`] : this.list;
  }
}

export const cellName = (ix: IndexedTruth, cell: number): string => `(${Math.floor(cell / ix.cols)},${cell % ix.cols})`;

export function emptyPlacement(n: number): Placement {
  return { cellPiece: new Int32Array(n).fill(-1), piecePos: new Int32Array(n).fill(-1) };
}

/** Piece code of a token that names no piece, and of an explicit blank. */
export const UNKNOWN = -1;
export const BLANK = -2;

/** Fills a placement from R×C raw tokens (null = explicitly empty), row-major. */
export function placeTokens(ix: IndexedTruth, tokens: readonly (string | null)[], problems: Problems): Placement {
  const pieces = tokens.map((t) => (t === null ? BLANK : (ix.index.get(t) ?? UNKNOWN)));
  return placePieces(ix, pieces, (cell) => tokens[cell] ?? '', problems);
}

/**
 * The repair rules of design §2.2 over resolved pieces (each token was looked up once before):
 * an unknown id leaves its cell blank; a repeated id keeps its first occurrence (row-major) and
 * blanks the later ones.
 */
export function placePieces(
  ix: IndexedTruth,
  pieces: ArrayLike<number>,
  tokenAt: (cell: number) => string,
  problems: Problems,
): Placement {
  const p = emptyPlacement(ix.n);
  for (let cell = 0; cell < pieces.length; cell++) {
    const piece = pieces[cell]!;
    if (piece === BLANK) continue;
    if (piece === UNKNOWN) {
      problems.add(`unknown id '${tokenAt(cell)}' at ${cellName(ix, cell)}: cell left blank`);
      continue;
    }
    const first = p.piecePos[piece]!;
    if (first >= 0) {
      problems.add(`duplicate id '${ix.ids[piece]}' at ${cellName(ix, cell)} (first at ${cellName(ix, first)}): cell left blank`);
      continue;
    }
    p.piecePos[piece] = cell;
    p.cellPiece[cell] = piece;
  }
  reportUnplaced(ix, p, problems);
  return p;
}

const LIST_UNPLACED = 20;

export function reportUnplaced(ix: IndexedTruth, p: Placement, problems: Problems): void {
  const missing: string[] = [];
  let count = 0;
  for (let k = 0; k < ix.n; k++) {
    if (p.piecePos[k]! >= 0) continue;
    if (count++ < LIST_UNPLACED) missing.push(`'${ix.ids[k]}'`);
  }
  if (count === 0) return;
  const more = count > LIST_UNPLACED ? `, … (${count - LIST_UNPLACED} more)` : '';
  problems.add(`${count} piece${count === 1 ? '' : 's'} not placed: ${missing.join(', ')}${more}`);
}
