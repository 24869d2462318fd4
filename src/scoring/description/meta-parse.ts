/**
 * Deterministic reading of the meta statements (orientation, grid, piece count) a model appends to its
 * description (design §2.1). What is accepted, precisely:
 *
 * Every line is normalised first: markdown emphasis and code marks (* _ `) are removed (a single *
 * between two numbers is kept as a multiplication sign), a leading list or quote marker (-, +, •, >,
 * #, "1." / "1)") is dropped, whitespace is collapsed.
 *
 * Labelled statements, anywhere in the answer — `<label> <sep> <value>` with sep one of : = - – — or
 * "is" — each at the start of a line or after a statement separator ('.', ';', ',' or '|') that is
 * followed by another label, so "Orientation: landscape. Grid: 8×12. Piece count: 96." on one line is
 * three statements ("Pieces: approx. 96" stays one: no label follows the dot):
 *   orientation  label "orientation" (optionally "image/picture/puzzle orientation"); value holds the
 *                word landscape|portrait (or horizontal → landscape, vertical → portrait)
 *   grid         label "grid", "grid size|dimensions|layout|shape", "dimensions", "size"; value holds a
 *                grid expression (below); or a pair of lines "Rows: 6" and "Columns: 9"
 *   pieces       label "pieces", "piece count", "pieces count", "piece total", "number/no./#/count of
 *                (puzzle) pieces", "total pieces", "total number of pieces";
 *                the value's first number (optionally after about/approximately/~), N in "6 x 9 = N",
 *                or the product of a grid expression with no "= N" ("Pieces: 6 x 9" is 54)
 * Free statements, only in the closing paragraph (the lines after the last blank line):
 *   orientation  "landscape orientation|format|mode", "portrait-oriented", "orientation is portrait",
 *                or a line that is nothing but "Landscape"/"Portrait"
 *   grid         "6 rows by 9 columns" / "9 columns × 6 rows" / "9 pieces wide and 6 tall" / "6 rows of
 *                9 pieces" anywhere in a
 *                line; a bare "6 x 9" only when followed by "grid" ("a 6 x 9 grid"), preceded by
 *                "grid of", or alone on its line
 *   pieces       "<N> pieces", "<N>-piece", but not a dimension ("9 pieces wide", "rows of 9 pieces");
 *                "6 x 9 pieces" / "a 6 x 9 piece puzzle" is the product (54)
 * Grid expressions: "R x C" with x, X, ×, ✕, * or "by" between the numbers means R rows and C columns;
 * with the words rows/columns the words decide ("9 columns × 6 rows" is 6 rows, 9 columns).
 * Numbers are digits (words like "two" are never read), with optional thousands separators
 * ("1,000", "1 000" with a space, a no-break or thin space, "1'000"); decimals are not counts and are ignored.
 * When a field is stated several times, the statement nearest the end of the answer wins.
 */

export type Orientation = 'landscape' | 'portrait';

export interface ParsedMeta {
  orientation: Orientation | null;
  grid: { rows: number; cols: number } | null;
  pieceCount: number | null;
}

const NUM = String.raw`(\d{1,3}(?:[,' \u00a0\u2009\u202f]\d{3})+|\d+)(?![\d]|[.,]\d)`;
const NUM_START = String.raw`(?<![\d.,])`;
const OP = String.raw`(?:[xX×✕*]|by)`;
const ROWS = String.raw`rows?`;
const COLS = String.raw`(?:columns?|cols?)`;
const SEP = String.raw`\s*(?:[:=]|[-–—]\s|\bis\b)\s*`;

const PIECES_OF = String.raw`(?:number|no\.?|#|count)\s+of\s+(?:puzzle\s+)?pieces`;

/** Where a labelled statement can begin: one of the labels below, then its separator. */
const LABEL_AHEAD = String.raw`(?:(?:image|picture|puzzle|total)\s+)?(?:orientation|grid(?:\s+(?:size|dimensions?|layout|shape))?|dimensions?|size|${PIECES_OF}|pieces?\s+(?:count|total)|pieces|(?:number\s+of\s+)?(?:rows|${COLS}))${SEP}`;

/**
 * A line cut into statements at '.', ';', ',' or '|' where another label follows (a list marker may sit
 * in between); a decimal point or thousands comma never has a label after it, so numbers stay whole.
 */
const STATEMENT_BREAK = new RegExp(String.raw`\s*[.;,|]\s*(?:[-+•]\s*)?(?=${LABEL_AHEAD})`, 'gi');

function statements(line: string): { offset: number; text: string }[] {
  const out: { offset: number; text: string }[] = [];
  let start = 0;
  for (const m of line.matchAll(STATEMENT_BREAK)) {
    if (m.index === 0) continue;
    out.push({ offset: start, text: line.slice(start, m.index) });
    start = m.index + m[0].length;
  }
  out.push({ offset: start, text: line.slice(start) });
  return out.filter((st) => st.text.trim() !== '');
}

const toInt = (s: string): number => Number(s.replace(/[^\d]/g, ''));

const ORIENTATION_WORDS: Readonly<Record<string, Orientation>> = {
  landscape: 'landscape',
  horizontal: 'landscape',
  portrait: 'portrait',
  vertical: 'portrait',
};

const RE = {
  rowsCols: new RegExp(String.raw`${NUM_START}${NUM}\s*${ROWS}\s*(?:${OP}|and|,|×)?\s*${NUM_START}${NUM}\s*${COLS}\b`, 'gi'),
  colsRows: new RegExp(String.raw`${NUM_START}${NUM}\s*${COLS}\s*(?:${OP}|and|,|×)?\s*${NUM_START}${NUM}\s*${ROWS}\b`, 'gi'),
  wideTall: new RegExp(
    String.raw`${NUM_START}${NUM}\s*(?:pieces?\s*)?(?:wide|across)\s*(?:${OP}|and|,)?\s*${NUM_START}${NUM}\s*(?:pieces?\s*)?(?:tall|high|down)\b`,
    'gi',
  ),
  tallWide: new RegExp(
    String.raw`${NUM_START}${NUM}\s*(?:pieces?\s*)?(?:tall|high|down)\s*(?:${OP}|and|,)?\s*${NUM_START}${NUM}\s*(?:pieces?\s*)?(?:wide|across)\b`,
    'gi',
  ),
  rowsOf: new RegExp(String.raw`${NUM_START}${NUM}\s*${ROWS}\s+of\s+${NUM_START}${NUM}\s*(?:pieces?|each)\b`, 'gi'),
  bare: new RegExp(String.raw`${NUM_START}${NUM}\s*${OP}\s*${NUM_START}${NUM}`, 'gi'),
  bareFreeGrid: new RegExp(
    String.raw`(?:${NUM_START}${NUM}\s*${OP}\s*${NUM_START}${NUM}\s*(?:-\s*)?(?:grid|layout|arrangement)\b|\bgrid\s+of\s+${NUM_START}${NUM}\s*${OP}\s*${NUM_START}${NUM})`,
    'gi',
  ),
  number: new RegExp(String.raw`${NUM_START}${NUM}`, 'g'),
  factorBefore: new RegExp(String.raw`${NUM_START}${NUM}\s*${OP}\s*$`, 'i'),
  labelOrientation: new RegExp(String.raw`^(?:(?:image|picture|puzzle)\s+)?orientation${SEP}(.*)$`, 'i'),
  labelGrid: new RegExp(
    String.raw`^(?:(?:image|picture|puzzle)\s+)?(?:grid(?:\s+(?:size|dimensions?|layout|shape))?|dimensions?|size)${SEP}(.*)$`,
    'i',
  ),
  labelPieces: new RegExp(
    String.raw`^(?:(?:total|puzzle)\s+)?(?:${PIECES_OF}|pieces?\s+(?:count|total)|pieces)${SEP}(?:about|approximately|approx\.?|roughly|~)?\s*(?:${NUM}\s*${OP}\s*${NUM}\s*=\s*)?${NUM_START}${NUM}`,
    'i',
  ),
  labelRows: new RegExp(String.raw`^(?:number\s+of\s+)?rows${SEP}${NUM_START}${NUM}`, 'i'),
  labelCols: new RegExp(String.raw`^(?:number\s+of\s+)?${COLS}${SEP}${NUM_START}${NUM}`, 'i'),
  orientationWord: /\b(landscape|portrait|horizontal|vertical)\b/i,
  freeOrientation:
    /\b(landscape|portrait)(?:\s+(?:orientation|format|mode)\b|[- ]oriented\b)|\borientation\s+(?:is\s+|of\s+)?(landscape|portrait)\b/gi,
  loneOrientation: /^(landscape|portrait)(?:\s+orientation)?\.?$/i,
  // "9 pieces wide" and "6 rows of 9 pieces" give a dimension, not the count.
  freePieces: new RegExp(
    String.raw`(?<!\b(?:rows?|columns?|cols?|lines?)\s+of\s+)${NUM_START}${NUM}\s*(?:-\s*)?pieces?\b(?!\s*(?:wide|across|tall|high|down|long|per|in\s+(?:each|a|every)\b))`,
    'gi',
  ),
};

/** A statement found at a position; later positions win. */
interface Found<T> {
  at: number;
  value: T;
}

function later<T>(a: Found<T> | null, b: Found<T> | null): Found<T> | null {
  if (!a) return b;
  if (!b) return a;
  return b.at >= a.at ? b : a;
}

function normaliseLine(line: string): string {
  return line
    // a lone * between two numbers is a multiplication sign ("6*9"), every other * is markdown
    .replace(/(?<=\d\s*)\*(?=\s*\d)/g, '×')
    .replace(/[*_`]/g, '')
    .replace(/^\s*(?:[-+•>]+|#+(?!\s+of\b)|\d+[.)])\s+/, '') // "# of pieces" is a label, not a heading
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** The last grid expression in a piece of text (worded forms beat bare ones at the same place). */
function lastGridExpression(text: string, at?: number): { index: number; rows: number; cols: number } | null {
  let best: { index: number; end: number; rows: number; cols: number } | null = null;
  const consider = (index: number, end: number, rows: number, cols: number) => {
    if (at !== undefined && index !== at) return;
    // A bare "6 x 9" inside a worded "6 rows x 9 columns" never matches (the words sit between), so
    // comparing start positions is enough; prefer the longer match at an equal start.
    if (!best || index > best.index || (index === best.index && end > best.end)) best = { index, end, rows, cols };
  };
  for (const m of text.matchAll(RE.rowsCols)) consider(m.index, m.index + m[0].length, toInt(m[1]!), toInt(m[2]!));
  for (const m of text.matchAll(RE.colsRows)) consider(m.index, m.index + m[0].length, toInt(m[2]!), toInt(m[1]!));
  for (const m of text.matchAll(RE.rowsOf)) consider(m.index, m.index + m[0].length, toInt(m[1]!), toInt(m[2]!));
  for (const m of text.matchAll(RE.wideTall)) consider(m.index, m.index + m[0].length, toInt(m[2]!), toInt(m[1]!));
  for (const m of text.matchAll(RE.tallWide)) consider(m.index, m.index + m[0].length, toInt(m[1]!), toInt(m[2]!));
  for (const m of text.matchAll(RE.bare)) consider(m.index, m.index + m[0].length, toInt(m[1]!), toInt(m[2]!));
  const b = best as { index: number; rows: number; cols: number } | null;
  return b ? { index: b.index, rows: b.rows, cols: b.cols } : null;
}

/** The grid expression that begins exactly at `index` of the text (the longest one there), or null. */
function gridAt(text: string, index: number): { rows: number; cols: number } | null {
  const g = lastGridExpression(text, index);
  return g ? { rows: g.rows, cols: g.cols } : null;
}

const ALONE_GRID = new RegExp(String.raw`^(?:grid\s*)?${NUM}\s*${OP}\s*${NUM}(?:\s*grid)?\.?$`, 'i');

/** The last grid statement outside a labelled line: worded anywhere, bare only next to "grid" or alone. */
function lastFreeGrid(line: string): { index: number; rows: number; cols: number } | null {
  if (ALONE_GRID.test(line)) return lastGridExpression(line);
  let best: { index: number; rows: number; cols: number } | null = null;
  const consider = (g: { index: number; rows: number; cols: number } | null) => {
    if (g && (!best || g.index >= best.index)) best = g;
  };
  const w1 = lastMatch(RE.rowsCols, line);
  if (w1) consider({ index: w1.index, rows: toInt(w1[1]!), cols: toInt(w1[2]!) });
  const w2 = lastMatch(RE.colsRows, line);
  if (w2) consider({ index: w2.index, rows: toInt(w2[2]!), cols: toInt(w2[1]!) });
  const w5 = lastMatch(RE.rowsOf, line);
  if (w5) consider({ index: w5.index, rows: toInt(w5[1]!), cols: toInt(w5[2]!) });
  const w3 = lastMatch(RE.wideTall, line);
  if (w3) consider({ index: w3.index, rows: toInt(w3[2]!), cols: toInt(w3[1]!) });
  const w4 = lastMatch(RE.tallWide, line);
  if (w4) consider({ index: w4.index, rows: toInt(w4[1]!), cols: toInt(w4[2]!) });
  const b = lastMatch(RE.bareFreeGrid, line);
  if (b) {
    const g = lastGridExpression(b[0]);
    if (g) consider({ index: b.index + g.index, rows: g.rows, cols: g.cols });
  }
  return best;
}

function lastMatch(re: RegExp, text: string): RegExpExecArray | null {
  let last: RegExpExecArray | null = null;
  for (const m of text.matchAll(re)) last = m as RegExpExecArray;
  return last;
}

const validGrid = (g: { rows: number; cols: number }) =>
  Number.isSafeInteger(g.rows) && Number.isSafeInteger(g.cols) && g.rows > 0 && g.cols > 0;
const validCount = (n: number) => Number.isSafeInteger(n) && n > 0;

/** Reads orientation, grid and piece count from an answer. Never throws. */
export function parseMeta(answer: string): ParsedMeta {
  const text = typeof answer === 'string' ? answer : '';
  const lines = text.split(/\r\n|\r|\n/);
  let closingStart = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]!.trim() === '') {
      if (lines.slice(i + 1).some((l) => l.trim() !== '')) {
        closingStart = i + 1;
        break;
      }
    }
  }

  let orientation: Found<Orientation> | null = null;
  let grid: Found<{ rows: number; cols: number }> | null = null;
  let pieces: Found<number> | null = null;
  let rowsLabel: Found<number> | null = null;
  let colsLabel: Found<number> | null = null;

  // Positions: where the line starts in the answer plus the offset in its normalised text (never longer
  // than the raw line), so positions order across lines of any length (a line index × 1e6 did not).
  let lineStart = 0;
  lines.forEach((raw, i) => {
    const base = lineStart;
    lineStart += raw.length + 1;
    const line = normaliseLine(raw);
    if (line === '') return;
    const closing = i >= closingStart;

    for (const st of statements(line)) {
      const at = base + st.offset;
      const lo = RE.labelOrientation.exec(st.text);
      if (lo) {
        const w = RE.orientationWord.exec(lo[1]!);
        if (w) orientation = later(orientation, { at, value: ORIENTATION_WORDS[w[1]!.toLowerCase()]! });
      }
      const lg = RE.labelGrid.exec(st.text);
      if (lg) {
        const g = lastGridExpression(lg[1]!);
        if (g && validGrid(g)) grid = later(grid, { at, value: { rows: g.rows, cols: g.cols } });
      }
      const lp = RE.labelPieces.exec(st.text);
      if (lp) {
        // "Pieces: 6 x 9" (no "= N") states the product, not its first factor.
        const g = lp[1] === undefined ? gridAt(st.text, lp.index + lp[0].length - lp[3]!.length) : null;
        const n = g ? g.rows * g.cols : toInt(lp[3]!);
        if (validCount(n)) pieces = later(pieces, { at, value: n });
      }
      const lr = RE.labelRows.exec(st.text);
      if (lr) rowsLabel = later(rowsLabel, { at, value: toInt(lr[1]!) });
      const lc = RE.labelCols.exec(st.text);
      if (lc) colsLabel = later(colsLabel, { at, value: toInt(lc[1]!) });
    }

    if (!closing) return;
    const lone = RE.loneOrientation.exec(line);
    if (lone) orientation = later(orientation, { at: base, value: ORIENTATION_WORDS[lone[1]!.toLowerCase()]! });
    const fo = lastMatch(RE.freeOrientation, line);
    if (fo) {
      const word = (fo[1] ?? fo[2])!.toLowerCase();
      orientation = later(orientation, { at: base + fo.index, value: ORIENTATION_WORDS[word]! });
    }
    const fp = lastMatch(RE.freePieces, line);
    if (fp) {
      // "6 x 9 pieces" / "a 6 x 9 piece puzzle": the product, not the last factor.
      const factor = RE.factorBefore.exec(line.slice(0, fp.index));
      const n = toInt(fp[1]!) * (factor ? toInt(factor[1]!) : 1);
      if (validCount(n)) pieces = later(pieces, { at: base + fp.index, value: n });
    }
    // Worded grids ("6 rows by 9 columns") are safe anywhere in the closing paragraph; bare "6 x 9"
    // needs "grid" next to it or a line of its own, so "a 2 x 4 plank" in the prose is not read.
    const g = lastFreeGrid(line);
    if (g && validGrid(g)) grid = later(grid, { at: base + g.index, value: { rows: g.rows, cols: g.cols } });
  });

  const r = rowsLabel as Found<number> | null;
  const c = colsLabel as Found<number> | null;
  if (r && c && validGrid({ rows: r.value, cols: c.value })) {
    grid = later(grid, { at: Math.max(r.at, c.at), value: { rows: r.value, cols: c.value } });
  }

  return {
    orientation: (orientation as Found<Orientation> | null)?.value ?? null,
    grid: (grid as Found<{ rows: number; cols: number }> | null)?.value ?? null,
    pieceCount: (pieces as Found<number> | null)?.value ?? null,
  };
}
