import type { IndexedTruth } from './indexed.ts';

/**
 * The plain-text answer form: a block of R lines × C ids somewhere in free text (model reasoning,
 * fences, markdown tables, "Row 1:" labels, JSON-ish brackets and quotes). A line is grid-like when
 * at least half its tokens are known ids or blank placeholders and one is a known id; a block is a
 * run of consecutive grid-like lines; the last run of exactly R lines of exactly C tokens wins.
 */
export type TextForm = { tokens: (string | null)[] } | { invalid: string };

/** Tokens a model writes for an empty cell. */
const PLACEHOLDERS: ReadonlySet<string> = new Set(['_', '__', '?', '??', '-', '--', '—', '–', '.', 'x', 'X', 'null', 'none', 'None', 'empty', 'blank', '·']);

const TAGS = /<\/?[A-Za-z][^<>]{0,40}>/g;
const LABEL = /^\s*(?:row|line)\s*\d+\s*(?:[:.)=-]\s*|\s+)/i;
const STRIP = /[[\]{}()"'`]/g;
const SEPARATORS = /[\s,;|]+/;
/** A leading list marker ("1.", "2)", "-", "*") in front of a full row. */
const MARKER = /^(?:\d+[.):]|[-*+>•])$/;
/** `],[` inside one line separates rows of a one-line JSON-style array. */
const ROW_BREAK = /\]\s*,?\s*\[/;

interface Line {
  tokens: string[];
  gridLike: boolean;
}

function readLine(ix: IndexedTruth, raw: string): Line {
  let s = raw.replace(TAGS, ' ').replace(LABEL, '');
  const colon = ix.colonIds ? -1 : s.indexOf(':');
  if (colon >= 0) {
    // "Answer: a b c" keeps what follows the label; `"id": [r, c]` (a mapping line) is no grid row.
    const label = s.slice(0, colon).replace(STRIP, ' ').split(SEPARATORS);
    if (label.some((t) => ix.index.has(t)) || s.indexOf(':', colon + 1) >= 0) return { tokens: [], gridLike: false };
    s = s.slice(colon + 1);
  }
  s = s.replace(STRIP, ' ');
  let tokens = s.split(SEPARATORS).filter((t) => t !== '');
  if (tokens.length === ix.cols + 1 && MARKER.test(tokens[0]!) && !ix.index.has(tokens[0]!)) tokens = tokens.slice(1);
  let known = 0;
  let blank = 0;
  for (const t of tokens) {
    if (ix.index.has(t)) known++;
    else if (PLACEHOLDERS.has(t)) blank++;
  }
  const allBlank = blank === tokens.length && tokens.length === ix.cols;
  return { tokens, gridLike: tokens.length > 0 && (allBlank || (known >= 1 && 2 * (known + blank) >= tokens.length)) };
}

export function readTextForm(ix: IndexedTruth, text: string): TextForm {
  const lines: Line[] = [];
  for (const raw of text.split(/\r\n|\r|\n/)) {
    if (raw.length > 0 && ROW_BREAK.test(raw)) for (const part of raw.split(ROW_BREAK)) lines.push(readLine(ix, part));
    else lines.push(readLine(ix, raw));
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
    // Inside a block, a run of full-width lines of exactly R lines is the grid (a stray header or
    // footer line of another width does not spoil it).
    let j = start;
    while (j < i) {
      if (lines[j]!.tokens.length !== ix.cols) {
        j++;
        continue;
      }
      const runStart = j;
      while (j < i && lines[j]!.tokens.length === ix.cols) j++;
      if (j - runStart === ix.rows) chosen = runStart;
    }
  }
  if (chosen >= 0) {
    const tokens: (string | null)[] = [];
    for (let r = 0; r < ix.rows; r++) {
      for (const t of lines[chosen + r]!.tokens) tokens.push(ix.index.has(t) || !PLACEHOLDERS.has(t) ? t : null);
    }
    return { tokens };
  }
  if (!lastBlock) return { invalid: `no grid of piece ids found (expected ${ix.rows} lines of ${ix.cols} ids)` };
  const widths = lastBlock.map((l) => l.tokens.length);
  const shown = widths.length <= 12 ? widths.join(', ') : `${widths.slice(0, 12).join(', ')}, …`;
  return {
    invalid: `wrong shape: the last grid-like block has ${widths.length} lines (of ${shown} ids), expected ${ix.rows} lines of ${ix.cols} ids`,
  };
}
