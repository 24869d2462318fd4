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

interface Embedded {
  value: unknown;
  /** The JSON text itself (a mapping's repeated ids are read from it). */
  source: string;
  /** Where the JSON starts in the text. */
  offset: number;
}

/** JSON embedded in prose: fenced blocks (last first), then the outermost {…} of the text. */
function embeddedJson(text: string): Embedded[] {
  const found: Embedded[] = [];
  const parts = text.split('```');
  const starts: number[] = [];
  for (let i = 0, at = 0; i < parts.length; at += parts[i]!.length + 3, i++) starts.push(at);
  for (let i = parts.length - 2; i >= 1; i -= 2) {
    const body = parts[i]!.replace(/^[A-Za-z0-9_-]*\r?\n/, '');
    const v = tryJson(body);
    if (v !== undefined) found.push({ value: v, source: body, offset: starts[i]! });
  }
  const open = text.indexOf('{');
  const close = text.lastIndexOf('}');
  if (open >= 0 && close > open) {
    const source = text.slice(open, close + 1);
    const v = tryJson(source);
    if (v !== undefined) found.push({ value: v, source, offset: open });
  }
  return found;
}

/** 0-based line of a text offset, counting line ends as readTextForm splits them. */
const lineAt = (text: string, offset: number): number => text.slice(0, offset).split(/\r\n|\r|\n/).length - 1;

/**
 * A JSON grid or mapping that starts below the text block (`endLine`) and places at least one piece: a later
 * answer ("First try: …block… Final answer: {"a": [0, 0], …}"), which wins as a later text block would.
 */
function laterJson(ix: IndexedTruth, text: string, endLine: number): { placement: Placement; problems: Problems } | null {
  const candidates = embeddedJson(text).sort((x, y) => y.offset - x.offset);
  for (const c of candidates) {
    if (lineAt(text, c.offset) <= endLine) break;
    const problems = new Problems();
    const form = readJsonForm(ix, c.value, problems, c.source);
    if (form && 'placement' in form && form.placement.piecePos.some((cell) => cell >= 0)) return { placement: form.placement, problems };
  }
  return null;
}

/**
 * Reads an answer in any accepted form (design §2.2). Never throws: whatever the text, the result
 * is a placement with its problems, or `invalid` with the reason.
 */
export function parsePlacement(ix: IndexedTruth, answer: string): ParsedPlacement {
  const problems = new Problems();
  const done = (placement: Placement | null, invalid?: string, from: Problems = problems): ParsedPlacement => {
    if (!placement) return { status: 'invalid', problems: [invalid ?? 'no grid found'], placement: null };
    const list = from.finish();
    return { status: list.length === 0 ? 'valid' : 'repaired', problems: list, placement };
  };

  const whole = tryJson(answer);
  if (whole !== undefined) {
    const form = readJsonForm(ix, whole, problems, answer);
    if (form) return 'invalid' in form ? done(null, form.invalid) : done(form.placement);
  }
  const text = readTextForm(ix, answer);
  if ('pieces' in text) {
    const later = answer.includes('{') || answer.includes('```') ? laterJson(ix, answer, text.endLine) : null;
    if (later) return done(later.placement, undefined, later.problems);
    return done(placePieces(ix, text.pieces, text.tokenAt, problems));
  }
  for (const { value, source } of embeddedJson(answer)) {
    const form = readJsonForm(ix, value, problems, source);
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
