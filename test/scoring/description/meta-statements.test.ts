import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMeta, type ParsedMeta } from '../../../src/scoring/description/meta.ts';

/**
 * Issue 11, finding 11b: `Orientation: landscape. Grid: 8×12. Piece count: 96.` on one line read the
 * orientation but neither the grid nor the piece count. Labelled statements now split at '.', ';', ','
 * and '|' when another label follows.
 */

const BODY = 'A cartoon farm with two ducks, 3 pigs and a 2 x 4 wooden sign. A landscape of hills; a portrait hangs in the barn.';
const withEnd = (end: string) => `${BODY}\n\n${end}`;

describe('several labelled statements on one line', () => {
  it('the issue example reads all three', () => {
    expect(parseMeta(withEnd('Orientation: landscape. Grid: 8×12. Piece count: 96.'))).toEqual({
      orientation: 'landscape',
      grid: { rows: 8, cols: 12 },
      pieceCount: 96,
    });
    // also when it is not the closing paragraph (labelled statements count anywhere)
    expect(parseMeta(`Orientation: landscape. Grid: 8×12. Piece count: 96.\n\n${BODY}`)).toEqual({
      orientation: 'landscape',
      grid: { rows: 8, cols: 12 },
      pieceCount: 96,
    });
  });

  const table: [string, Partial<ParsedMeta>][] = [
    ['Orientation: portrait; Grid: 8 x 12; Pieces: 96', { orientation: 'portrait', grid: { rows: 8, cols: 12 }, pieceCount: 96 }],
    ['Orientation: portrait, Grid: 8 X 12, Pieces: 96', { orientation: 'portrait', grid: { rows: 8, cols: 12 }, pieceCount: 96 }],
    ['Orientation: landscape | Grid: 8 by 12 | Number of pieces: 96', { orientation: 'landscape', grid: { rows: 8, cols: 12 }, pieceCount: 96 }],
    ['Grid: 8 rows and 12 columns. Total pieces: 96.', { grid: { rows: 8, cols: 12 }, pieceCount: 96 }],
    ['Dimensions: 12 columns by 8 rows; piece count = 96', { grid: { rows: 8, cols: 12 }, pieceCount: 96 }],
    ['Rows: 8, Columns: 12, Orientation: landscape', { orientation: 'landscape', grid: { rows: 8, cols: 12 } }],
    ['Grid size: 8x12. Pieces: 8 x 12 = 96.', { grid: { rows: 8, cols: 12 }, pieceCount: 96 }],
    ['Grid: 8×12. Pieces: approx. 96.', { grid: { rows: 8, cols: 12 }, pieceCount: 96 }],
    ['Pieces: 1,000, Grid: 25 x 40.', { grid: { rows: 25, cols: 40 }, pieceCount: 1000 }],
    ['No. of pieces: 96. Orientation is landscape.', { orientation: 'landscape', pieceCount: 96 }],
    ['Count of pieces: 96 | Piece total: 97', { pieceCount: 97 }],
    ['# of pieces: 96, Grid: 12 pieces wide and 8 tall', { grid: { rows: 8, cols: 12 }, pieceCount: 96 }],
    ['Grid: 8 ✕ 12. Pieces: ~96', { grid: { rows: 8, cols: 12 }, pieceCount: 96 }],
    ['**Orientation:** landscape. **Grid:** 8 × 12. **Piece count:** 96.', { orientation: 'landscape', grid: { rows: 8, cols: 12 }, pieceCount: 96 }],
    ['- Orientation: landscape; - Grid: 8x12', { orientation: 'landscape', grid: { rows: 8, cols: 12 } }],
  ];
  it.each(table)('%s', (line, expected) => {
    expect(parseMeta(withEnd(line))).toMatchObject(expected);
  });

  it('later statements on the same line still win', () => {
    expect(parseMeta(withEnd('Grid: 8x12. Grid: 12x8. Pieces: 96; Pieces: 95')).grid).toEqual({ rows: 12, cols: 8 });
    expect(parseMeta(withEnd('Pieces: 96; Pieces: 95')).pieceCount).toBe(95);
  });

  it('a separator without a label after it does not split a value', () => {
    // "approx." and "2.5" are not statement breaks; a decimal count is still not a count
    expect(parseMeta(withEnd('Pieces: approx. 96')).pieceCount).toBe(96);
    expect(parseMeta(withEnd('Pieces: 2.5, Grid: 3 x 4')).pieceCount).toBeNull();
    expect(parseMeta(withEnd('Pieces: 2.5, Grid: 3 x 4')).grid).toEqual({ rows: 3, cols: 4 });
    // a label inside prose is not a label: "Correction: orientation: landscape" stays unread
    expect(parseMeta(withEnd('Orientation: portrait\nCorrection: orientation: landscape')).orientation).toBe('portrait');
  });
});

// The statement forms of each field (R rows, C columns, N pieces).
const ORIENTATION_FORMS = (o: 'landscape' | 'portrait') => [
  `Orientation: ${o}`,
  `Orientation - ${o}`,
  `Orientation is ${o}`,
  `Image orientation: ${o === 'landscape' ? 'horizontal' : 'vertical'}`,
];
const GRID_FORMS = (r: number, c: number) => [
  `Grid: ${r}x${c}`,
  `Grid: ${r} × ${c}`,
  `Grid size: ${r} X ${c}`,
  `Grid: ${r} by ${c}`,
  `Grid: ${r} rows and ${c} columns`,
  `Dimensions: ${c} columns by ${r} rows`,
  `Grid = ${r}*${c}`,
];
const PIECE_FORMS = (n: number) => [`Piece count: ${n}`, `Pieces: ${n}`, `Number of pieces: ${n}`, `Total pieces: about ${n}`, `Pieces count = ${n}`, `Number of pieces: ${n.toLocaleString('en-US')}`];

describe('order and layout of the three statements do not matter (fast-check)', () => {
  it('shuffled, joined on one line with any separators or on separate lines: the same meta', () => {
    const statement = fc
      .record({
        orientation: fc.constantFrom<'landscape' | 'portrait'>('landscape', 'portrait'),
        rows: fc.integer({ min: 1, max: 120 }),
        cols: fc.integer({ min: 1, max: 120 }),
        pieces: fc.integer({ min: 1, max: 99_999 }),
      })
      .chain((m) =>
        fc.record({
          meta: fc.constant(m),
          parts: fc.tuple(
            fc.constantFrom(...ORIENTATION_FORMS(m.orientation)),
            fc.constantFrom(...GRID_FORMS(m.rows, m.cols)),
            fc.constantFrom(...PIECE_FORMS(m.pieces)),
          ),
        }),
      );
    fc.assert(
      fc.property(
        statement,
        fc.shuffledSubarray([0, 1, 2], { minLength: 3, maxLength: 3 }),
        fc.array(fc.constantFrom('. ', '; ', ', ', ' | ', '.  ', ' ; '), { minLength: 2, maxLength: 2 }),
        fc.constantFrom('', '.', ';'),
        fc.boolean(),
        ({ meta, parts }, order, seps, end, asBody) => {
          const shuffled = order.map((i) => parts[i]!);
          const oneLine = shuffled[0]! + seps[0]! + shuffled[1]! + seps[1]! + shuffled[2]! + end;
          const lines = shuffled.join('\n');
          const expected: ParsedMeta = { orientation: meta.orientation, grid: { rows: meta.rows, cols: meta.cols }, pieceCount: meta.pieces };
          const wrap = (s: string) => (asBody ? withEnd(s) : s);
          expect(parseMeta(wrap(oneLine))).toEqual(expected);
          expect(parseMeta(wrap(lines))).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
