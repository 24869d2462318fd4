import type { GridTruth } from '../../domain/grid.ts';
import { type IndexedTruth, indexTruth } from './indexed.ts';
import { readJsonForm } from './json-form.ts';
import { type Placement, placePieces, Problems } from './placement.ts';
import { readTextForm } from './text-form.ts';

export type GridAnswerStatus = 'valid' | 'repaired' | 'invalid';

export interface ParsedPlacement {
  status: GridAnswerStatus;
  problems: string[];
  /** null when status is invalid. */
  placement: Placement | null;
}

export interface ParsedGridAnswer {
  status: GridAnswerStatus;
  problems: string[];
  /** The predicted R×C placement (null = blank cell); empty when invalid. */
  cells: (string | null)[][];
}

function tryJson(text: string): unknown {
  const t = text.trim();
  const first = t[0];
  if (first !== '[' && first !== '{') return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/** JSON embedded in prose: fenced blocks (last first), then the outermost {…} of the text. */
function embeddedJson(text: string): unknown[] {
  const found: unknown[] = [];
  const parts = text.split('```');
  for (let i = parts.length - 2; i >= 1; i -= 2) {
    const body = parts[i]!.replace(/^[A-Za-z0-9_-]*\r?\n/, '');
    const v = tryJson(body);
    if (v !== undefined) found.push(v);
  }
  const open = text.indexOf('{');
  const close = text.lastIndexOf('}');
  if (open >= 0 && close > open) {
    const v = tryJson(text.slice(open, close + 1));
    if (v !== undefined) found.push(v);
  }
  return found;
}

/**
 * Reads an answer in any accepted form (design §2.2). Never throws: whatever the text, the result
 * is a placement with its problems, or `invalid` with the reason.
 */
export function parsePlacement(ix: IndexedTruth, answer: string): ParsedPlacement {
  const problems = new Problems();
  const done = (placement: Placement | null, invalid?: string): ParsedPlacement => {
    if (!placement) return { status: 'invalid', problems: [invalid ?? 'no grid found'], placement: null };
    const list = problems.finish();
    return { status: list.length === 0 ? 'valid' : 'repaired', problems: list, placement };
  };

  const whole = tryJson(answer);
  if (whole !== undefined) {
    const form = readJsonForm(ix, whole, problems);
    if (form) return 'invalid' in form ? done(null, form.invalid) : done(form.placement);
  }
  const text = readTextForm(ix, answer);
  if ('pieces' in text) return done(placePieces(ix, text.pieces, text.tokenAt, problems));
  for (const v of embeddedJson(answer)) {
    const form = readJsonForm(ix, v, problems);
    if (form && 'placement' in form) return done(form.placement);
    if (form) return done(null, form.invalid);
  }
  return done(null, text.invalid);
}

export function parseGridAnswer(truth: GridTruth, answer: string): ParsedGridAnswer {
  const ix = indexTruth(truth);
  const parsed = parsePlacement(ix, answer);
  if (!parsed.placement) return { status: parsed.status, problems: parsed.problems, cells: [] };
  const { cellPiece } = parsed.placement;
  const cells: (string | null)[][] = [];
  for (let r = 0; r < ix.rows; r++) {
    const row: (string | null)[] = [];
    for (let c = 0; c < ix.cols; c++) {
      const piece = cellPiece[r * ix.cols + c]!;
      row.push(piece >= 0 ? ix.ids[piece]! : null);
    }
    cells.push(row);
  }
  return { status: parsed.status, problems: parsed.problems, cells };
}
