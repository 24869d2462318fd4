import { topLevelMembers } from '../../domain/json-spans.ts';
import type { IndexedTruth } from './indexed.ts';
import { cellName, emptyPlacement, type Placement, placeTokens, Problems, reportUnplaced } from './placement.ts';

/** Outcome of reading one JSON value as a grid answer; `null` when it is no grid form at all. */
export type JsonForm = { placement: Placement } | { invalid: string } | null;

/** Keys under which models commonly wrap the 2-D array (`{"grid": [[…]]}`). */
const WRAPPER_KEYS = ['grid', 'layout', 'answer', 'solution', 'assembly', 'placement'] as const;

/** A short description of a JSON value for a problem message (never stringifies deep structures). */
function describe(v: unknown): string {
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object' && v !== null) return 'an object';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `source`: the JSON text `value` was parsed from, for a mapping whose ids repeat (JSON.parse keeps the last). */
export function readJsonForm(ix: IndexedTruth, value: unknown, problems: Problems, source?: string): JsonForm {
  if (Array.isArray(value)) return readArray(ix, value, problems);
  if (!isRecord(value)) return null;
  for (const key of WRAPPER_KEYS) {
    const inner = value[key];
    if (Array.isArray(inner) && inner.length > 0 && inner.every(Array.isArray)) return readArray(ix, inner, problems);
  }
  return readMapping(ix, value, problems, source);
}

function readArray(ix: IndexedTruth, rows: unknown[], problems: Problems): JsonForm {
  if (!rows.every(Array.isArray)) {
    return { invalid: `JSON array is not a 2-D array of ids (expected ${ix.rows} rows of ${ix.cols} ids)` };
  }
  const lengths = (rows as unknown[][]).map((r) => r.length);
  if (rows.length !== ix.rows || lengths.some((l) => l !== ix.cols)) {
    const shown = lengths.length <= 12 ? lengths.join(', ') : `${lengths.slice(0, 12).join(', ')}, …`;
    return {
      invalid: `wrong shape: JSON array has ${rows.length} rows (of ${shown} ids), expected ${ix.rows} rows of ${ix.cols} ids`,
    };
  }
  const tokens: (string | null)[] = new Array(ix.n);
  let cell = 0;
  for (const row of rows as unknown[][]) {
    for (const v of row) {
      if (typeof v === 'string') tokens[cell] = v.trim() === '' ? null : v.trim();
      else if (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) > Number.MAX_SAFE_INTEGER) {
        // JSON.parse rounded it (9007199254740993 reads as …992): stringified it would name a piece the answer never wrote.
        problems.add(`cell ${cellName(ix, cell)} holds ${v}, a number beyond ${Number.MAX_SAFE_INTEGER} that JSON does not hold exactly (not the number written): cell left blank`);
        tokens[cell] = null;
      } else if (typeof v === 'number' && Number.isFinite(v)) tokens[cell] = String(v);
      else {
        if (v !== null) problems.add(`cell ${cellName(ix, cell)} holds ${describe(v)}, not an id: cell left blank`);
        tokens[cell] = null;
      }
      cell++;
    }
  }
  return { placement: placeTokens(ix, tokens, problems) };
}

/**
 * The mapping's members in text order, an id given twice kept at its first occurrence (design §2.2) and
 * the later ones reported: JSON.parse keeps the last, which placed a piece where the answer last said.
 */
function firstMembers(map: Record<string, unknown>, source: string | undefined, problems: Problems): Array<[string, unknown]> {
  const members = source === undefined ? [] : topLevelMembers(source);
  const keys = Object.keys(map);
  // Text order also where two keys are one id once trimmed (" 1", "1"): an object lists integer keys first.
  const clash = new Set(keys.map((k) => k.trim())).size < keys.length;
  if (members.length < keys.length || (members.length === keys.length && !clash)) return Object.entries(map);
  const seen = new Set<string>();
  const out: Array<[string, unknown]> = [];
  for (const [key, text] of members) {
    if (seen.has(key)) {
      problems.add(`id '${key.trim()}' given twice in the mapping: the first kept, ${text} ignored`);
      continue;
    }
    seen.add(key);
    out.push([key, JSON.parse(text)]);
  }
  return out;
}

/**
 * `{"id": [row, col]}` with 0-based cells. Two ids that claim one cell have no order between them (a
 * mapping's keys are names, not a sequence), so neither is preferred: the cell stays blank and both
 * pieces count as unplaced.
 */
function readMapping(ix: IndexedTruth, map: Record<string, unknown>, problems: Problems, source?: string): JsonForm {
  const entries = firstMembers(map, source, problems);
  const isCell = (v: unknown): v is [number, number] =>
    Array.isArray(v) && v.length === 2 && Number.isInteger(v[0]) && Number.isInteger(v[1]);
  if (!entries.some(([, v]) => isCell(v))) {
    return { invalid: 'JSON object is neither a mapping {"id": [row, col]} nor {"grid": [[…]]}' };
  }
  const p = emptyPlacement(ix.n);
  const contested = new Uint8Array(ix.n);
  // Keys that differ only by the spaces around them (" a", "a") name one id: the first kept, as for a repeated key.
  const named = new Uint8Array(ix.n);
  for (const [key, v] of entries) {
    const id = key.trim();
    const piece = ix.index.get(id);
    if (piece === undefined) {
      problems.add(`unknown id '${id}' in the mapping: ignored`);
      continue;
    }
    if (named[piece]) {
      problems.add(`id '${id}' given twice in the mapping: the first kept, ${isCell(v) ? `[${v[0]},${v[1]}]` : describe(v)} ignored`);
      continue;
    }
    named[piece] = 1;
    if (!isCell(v)) {
      problems.add(`id '${id}' maps to ${describe(v)}, not [row, col]: not placed`);
      continue;
    }
    const [r, c] = v;
    if (r < 0 || r >= ix.rows || c < 0 || c >= ix.cols) {
      problems.add(`id '${id}' maps to (${r},${c}), outside the ${ix.rows}×${ix.cols} grid: not placed`);
      continue;
    }
    const cell = r * ix.cols + c;
    const holder = p.cellPiece[cell]!;
    if (contested[cell]) {
      problems.add(`id '${id}' also maps to contested cell (${r},${c}): not placed`);
    } else if (holder >= 0) {
      problems.add(`ids '${ix.ids[holder]}' and '${id}' both map to (${r},${c}): cell left blank, neither placed`);
      p.piecePos[holder] = -1;
      p.cellPiece[cell] = -1;
      contested[cell] = 1;
    } else {
      p.cellPiece[cell] = piece;
      p.piecePos[piece] = cell;
    }
  }
  reportUnplaced(ix, p, problems);
  return { placement: p };
}
