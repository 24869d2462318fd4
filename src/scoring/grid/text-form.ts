import type { IndexedTruth } from './indexed.ts';
import { HASH_SEED, hashStep } from './id-lookup.ts';
import { BLANK, UNKNOWN } from './placement.ts';

/**
 * The plain-text answer form: a block of R lines × C ids somewhere in free text (model reasoning,
 * fences, markdown tables, "Row 1:" labels, JSON-ish brackets and quotes). A line is grid-like when
 * at least half its tokens are known ids or blank placeholders and one is a known id (or it is a
 * full row of placeholders); a block is a run of consecutive grid-like lines; the last run of
 * exactly R lines of exactly C tokens wins. `endLine` is the 0-based text line of the block's last row.
 */
export type TextForm = { pieces: number[]; tokenAt: (cell: number) => string; endLine: number } | { invalid: string };

/** Tokens a model writes for an empty cell. */
const PLACEHOLDERS: ReadonlySet<string> = new Set(['_', '__', '?', '??', '-', '--', '—', '–', '.', 'x', 'X', 'null', 'none', 'None', 'empty', 'blank', '·']);

const TAGS = /<\/?[A-Za-z][^<>]{0,40}>/g;
const LABEL = /^\s*(?:row|line)\s*\d+\s*(?:[:.)=-]\s*|\s+)/i;
/** A leading list marker ("1.", "2)", "-", "*") in front of a full row. */
const MARKER = /^(?:\d+[.):]|[-*+>•])$/;
/**
 * A numbered-list marker at the start of a line ("1)", "2.", "3:", "(4)"): the tokenizer splits "1)" into the
 * token "1", which the MARKER test on the token cannot see. Group 1 is the number of the bracketed form.
 */
const NUMBERED = /^\s*(?:\d+[.):]|\((\d+)\))\s+/;
/** A bare row number in front of a colon ("3:"), which may also be a piece id. */
const ROW_NUMBER = /^\s*\d+\s*$/;
/** A markdown table's header rule ("|---|:-:|"): it separates the header row from the body, not two blocks. */
const TABLE_RULE = /^\s*\|?(?:\s*:?-+:?\s*\|)+(?:\s*:?-+:?\s*)?$/;
/** `],[` inside one line separates rows of a one-line JSON-style array. */
const ROW_BREAK = /\]\s*(?:,\s*)?\[/;

/** Characters that end a token: separators (space, comma, semicolon, pipe) and stripped brackets/quotes. */
const BREAKS = new Uint8Array(128);
for (const ch of ' \t\n\v\f\r,;|[]{}()"\'`') BREAKS[ch.charCodeAt(0)] = 1;
const WIDE_SPACE = /\s/;

interface Line {
  /** Piece index per token, or UNKNOWN / BLANK. */
  pieces: number[];
  /** Token text of the UNKNOWN tokens (known ones are ids[piece], blanks need none). */
  unknown: Map<number, string> | null;
  gridLike: boolean;
}

const NOT_A_ROW: Line = { pieces: [], unknown: null, gridLike: false };

// Module-local copies: the TypeScript loader turns imported bindings into getter calls, which
// showed up in profiles of this per-token loop.
const BLANK_PIECE = BLANK;
const UNKNOWN_PIECE = UNKNOWN;
const HASH_SEED_ = HASH_SEED;
const hashStep_ = hashStep;

interface Scan {
  pieces: number[];
  /** Created on the first unknown token: most lines have none. */
  unknown: Map<number, string> | null;
  blank: number;
  firstText: string;
}

/** The rare path: a token that is not an id is a placeholder (blank cell) or an unknown id. */
function addOther(scan: Scan, text: string): void {
  if (scan.pieces.length === 0) scan.firstText = text;
  if (PLACEHOLDERS.has(text)) {
    scan.blank++;
    scan.pieces.push(BLANK_PIECE);
  } else {
    (scan.unknown ??= new Map()).set(scan.pieces.length, text);
    scan.pieces.push(UNKNOWN_PIECE);
  }
}

/**
 * One pass over the line, each token looked up in place (no substring unless it is not an id):
 * text parsing is most of the cost of scoring a large grid, so the common path stays in this loop.
 */
function scanLine(ix: IndexedTruth, s: string): Line {
  const scan: Scan = { pieces: [], unknown: null, blank: 0, firstText: '' };
  const pieces = scan.pieces;
  const lookup = ix.lookup;
  const seed = HASH_SEED_;
  let known = 0;
  let start = -1;
  let h = seed;
  const len = s.length;
  for (let i = 0; i <= len; i++) {
    const code = i < len ? s.charCodeAt(i) : 32;
    if (code < 128 ? BREAKS[code] === 1 : WIDE_SPACE.test(s[i]!)) {
      if (start >= 0) {
        const piece = lookup.findHashed(s, start, i, h);
        if (piece >= 0) {
          known++;
          pieces.push(piece);
        } else addOther(scan, s.slice(start, i));
        start = -1;
      }
    } else {
      // The token's hash is built while its end is being found: one pass over the characters.
      if (start < 0) {
        start = i;
        h = seed;
      }
      h = hashStep_(h, code);
    }
  }
  let unknown = scan.unknown;
  // A list marker before a full row ("1. a b c", "- a b c") is no cell.
  if (pieces.length === ix.cols + 1 && pieces[0]! < 0 && MARKER.test(scan.firstText)) {
    if (pieces.shift() === BLANK_PIECE) scan.blank--;
    if (unknown) {
      const shifted = new Map<number, string>();
      for (const [i, t] of unknown) if (i > 0) shifted.set(i - 1, t);
      unknown = shifted.size > 0 ? shifted : null;
    }
  }
  const n = pieces.length;
  const allBlank = scan.blank === n && n === ix.cols;
  const gridLike = n > 0 && (allBlank || (known >= 1 && 2 * (known + scan.blank) >= n));
  return { pieces, unknown, gridLike };
}

function readLine(ix: IndexedTruth, raw: string): Line {
  let s = raw.includes('<') ? raw.replace(TAGS, ' ') : raw;
  const label = LABEL.exec(s);
  // "row1 row2" on a grid whose ids are row1…: the first id is no "Row 1" label.
  if (label && !ix.index.has(label[0].trim().replace(/[:.)=-]$/, '').trim())) s = s.slice(label[0].length);
  const colon = ix.colonIds ? -1 : s.indexOf(':');
  if (colon >= 0) {
    // "Answer: a b c" keeps what follows the label; `"id": [r, c]` (a mapping line) is no grid row. A bare
    // number before the colon and no bracket after it ("1: 14 11 0 12") is a row number, even when a piece
    // has that number for its id.
    const rowNumber = ROW_NUMBER.test(s.slice(0, colon)) && !/^\s*\[/.test(s.slice(colon + 1));
    const label = scanLine(ix, s.slice(0, colon));
    if ((!rowNumber && label.pieces.some((p) => p >= 0)) || s.indexOf(':', colon + 1) >= 0) return NOT_A_ROW;
    s = s.slice(colon + 1);
  }
  const line = scanLine(ix, s);
  if (line.pieces.length === ix.cols + 1) {
    // "1) a b c": one token too many and a list marker in front. "(1)" around a known id is that id.
    const m = NUMBERED.exec(s);
    if (m && (m[1] === undefined || line.pieces[0]! < 0)) {
      const rest = scanLine(ix, s.slice(m[0].length));
      if (rest.pieces.length === ix.cols) return rest;
    }
  }
  return line;
}

export function readTextForm(ix: IndexedTruth, text: string): TextForm {
  const lines: Line[] = [];
  /** Text line of each entry of `lines` (a one-line array gives several entries on one text line). */
  const lineOf: number[] = [];
  const raws = text.split(/\r\n|\r|\n/);
  /** Entries of `lines` that are a markdown table's header (the line above its rule). */
  const headers = new Set<number>();
  for (let r = 0; r < raws.length; r++) {
    const raw = raws[r]!;
    if (raw.includes('|') && TABLE_RULE.test(raw)) {
      if (lines.length > 0) headers.add(lines.length - 1);
      continue;
    }
    if (raw.includes('[') && ROW_BREAK.test(raw)) {
      // Rows of a one-line array: only the bracketed span, not the prose around it on that line.
      const span = raw.slice(raw.indexOf('['), raw.lastIndexOf(']') + 1);
      for (const part of span.split(ROW_BREAK)) {
        lines.push(readLine(ix, part));
        lineOf.push(r);
      }
    } else {
      lines.push(readLine(ix, raw));
      lineOf.push(r);
    }
  }
  let chosen = -1;
  let lastBlock: Line[] | null = null;
  let i = 0;
  while (i < lines.length) {
    if (!lines[i]!.gridLike) {
      i++;
      continue;
    }
    const start = i;
    while (i < lines.length && lines[i]!.gridLike) i++;
    lastBlock = lines.slice(start, i);
    // Inside a block, a run of exactly R full-width lines is the grid (a stray header or footer
    // line of another width does not spoil it).
    let j = start;
    while (j < i) {
      if (lines[j]!.pieces.length !== ix.cols) {
        j++;
        continue;
      }
      const runStart = j;
      while (j < i && lines[j]!.pieces.length === ix.cols) j++;
      if (j - runStart === ix.rows) chosen = runStart;
      // A table whose header names the columns with piece-like numbers ("| 1 | 2 | 3 |"): the body is the grid.
      else if (j - runStart === ix.rows + 1 && headers.has(runStart)) chosen = runStart + 1;
    }
  }
  if (chosen >= 0) {
    const grid = lines.slice(chosen, chosen + ix.rows);
    const pieces: number[] = [];
    for (const l of grid) for (const p of l.pieces) pieces.push(p);
    const tokenAt = (cell: number) => {
      const l = grid[Math.floor(cell / ix.cols)]!;
      const piece = l.pieces[cell % ix.cols]!;
      return piece >= 0 ? ix.ids[piece]! : (l.unknown?.get(cell % ix.cols) ?? '');
    };
    return { pieces, tokenAt, endLine: lineOf[chosen + ix.rows - 1]! };
  }
  if (!lastBlock) return { invalid: `no grid of piece ids found (expected ${ix.rows} lines of ${ix.cols} ids)` };
  const widths = lastBlock.map((l) => l.pieces.length);
  const shown = widths.length <= 12 ? widths.join(', ') : `${widths.slice(0, 12).join(', ')}, …`;
  return {
    invalid: `wrong shape: the last grid-like block has ${widths.length} lines (of ${shown} ids), expected ${ix.rows} lines of ${ix.cols} ids`,
  };
}
