import type { RubricTruth } from '../../domain/rubric.ts';
import type { Orientation, ParsedMeta } from './meta-parse.ts';

export { parseMeta, type Orientation, type ParsedMeta } from './meta-parse.ts';

/**
 * Meta scores of design §2.1/§3, kept apart from f1. A field the answer does not state is `null` and
 * not correct. A field the rubric's truth does not give cannot be judged: `correct` is then `null`
 * with a `reason` (piece count falls back to rows × cols when the truth has a grid but no count).
 */
export interface MetaScore {
  orientation: { stated: Orientation | null; correct: boolean | null; reason?: string };
  grid: {
    stated: { rows: number; cols: number } | null;
    correct: boolean | null;
    /** The stated grid is the true one with rows and columns swapped (never true when `correct` is). */
    transposed: boolean | null;
    reason?: string;
  };
  pieceCount: { stated: number | null; error: number | null; reason?: string };
}

export function scoreMeta(parsed: ParsedMeta, truth: RubricTruth): MetaScore {
  const orientation: MetaScore['orientation'] =
    truth.orientation === undefined
      ? { stated: parsed.orientation, correct: null, reason: 'rubric truth has no orientation' }
      : { stated: parsed.orientation, correct: parsed.orientation === truth.orientation };

  let grid: MetaScore['grid'];
  const g = parsed.grid;
  if (!truth.grid) {
    grid = { stated: g, correct: null, transposed: null, reason: 'rubric truth has no grid' };
  } else {
    const t = truth.grid;
    const correct = g !== null && g.rows === t.rows && g.cols === t.cols;
    const transposed = g !== null && !correct && g.rows === t.cols && g.cols === t.rows;
    grid = { stated: g, correct, transposed };
  }

  const truePieces = truth.pieces ?? (truth.grid ? truth.grid.rows * truth.grid.cols : undefined);
  let pieceCount: MetaScore['pieceCount'];
  if (truePieces === undefined) {
    pieceCount = { stated: parsed.pieceCount, error: null, reason: 'rubric truth has no piece count or grid' };
  } else if (parsed.pieceCount === null) {
    pieceCount = { stated: null, error: null, reason: 'the answer states no piece count' };
  } else {
    pieceCount = { stated: parsed.pieceCount, error: Math.abs(parsed.pieceCount - truePieces) / truePieces };
  }
  return { orientation, grid, pieceCount };
}
