import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMeta, scoreMeta } from '../../../src/scoring/description/meta.ts';

const BODY = 'A cartoon farm with two ducks, 3 pigs and a 2 x 4 wooden sign. A landscape of hills; a portrait hangs in the barn.';
const withEnd = (end: string) => `${BODY}\n\n${end}`;

describe('parseMeta: grid phrasings (rows × columns)', () => {
  const table: Array<[string, { rows: number; cols: number } | null]> = [
    ['Grid: 6 x 9', { rows: 6, cols: 9 }],
    ['6 x 9', { rows: 6, cols: 9 }],
    ['6×9', { rows: 6, cols: 9 }],
    ['6X9', { rows: 6, cols: 9 }],
    ['6x9', { rows: 6, cols: 9 }],
    ['6 rows by 9 columns', { rows: 6, cols: 9 }],
    ['9 columns × 6 rows', { rows: 6, cols: 9 }],
    ['Grid: 6 by 9', { rows: 6, cols: 9 }],
    ['**Grid:** 6 × 9', { rows: 6, cols: 9 }],
    ['*Grid*: *6 x 9*', { rows: 6, cols: 9 }],
    ['- Grid size: 6 x 9', { rows: 6, cols: 9 }],
    ['Grid: 9 columns by 6 rows', { rows: 6, cols: 9 }],
    ['Grid dimensions = 12 x 10', { rows: 12, cols: 10 }],
    ['It is a 6 x 9 grid.', { rows: 6, cols: 9 }],
    ['The pieces form a grid of 6 × 9.', { rows: 6, cols: 9 }],
    ['The puzzle has 6 rows and 9 columns.', { rows: 6, cols: 9 }],
    ['Rows: 6\nColumns: 9', { rows: 6, cols: 9 }],
    ['Grid: 9 x 6', { rows: 9, cols: 6 }],
    ['It is 9 pieces wide and 6 pieces tall.', { rows: 6, cols: 9 }],
    ['Grid: 9 wide x 6 high', { rows: 6, cols: 9 }],
    ['54 pieces in total (6 rows of 9 pieces).', { rows: 6, cols: 9 }],
    ['Grid: big', null],
    ['Grid: 0 x 9', null],
    ['I see a 6 x 9 sign.', null],
  ];
  it.each(table)('%j → %j', (end, grid) => {
    expect(parseMeta(withEnd(end)).grid).toEqual(grid);
  });
});

describe('parseMeta: orientation and piece count phrasings', () => {
  const table: Array<[string, Partial<ReturnType<typeof parseMeta>>]> = [
    ['Orientation: landscape', { orientation: 'landscape' }],
    ['**Orientation**: Portrait', { orientation: 'portrait' }],
    ['Orientation - horizontal', { orientation: 'landscape' }],
    ['Image orientation is vertical.', { orientation: 'portrait' }],
    ['The image is in landscape orientation.', { orientation: 'landscape' }],
    ['A portrait-oriented puzzle.', { orientation: 'portrait' }],
    ['Landscape.', { orientation: 'landscape' }],
    ['Pieces: 54', { pieceCount: 54 }],
    ['54 pieces', { pieceCount: 54 }],
    ['Piece count: 54', { pieceCount: 54 }],
    ['Number of pieces: 54', { pieceCount: 54 }],
    ['**Number of pieces:** ~54', { pieceCount: 54 }],
    ['Pieces: 1,000', { pieceCount: 1000 }],
    ['A 1,000-piece puzzle.', { pieceCount: 1000 }],
    ['It has 1\u202f000 pieces.', { pieceCount: 1000 }],
    ['Pieces: 6 x 9 = 54', { pieceCount: 54 }],
    ['54 pieces in total (6 rows of 9 pieces).', { pieceCount: 54 }],
    ['It is 9 pieces wide and 6 pieces tall.', { pieceCount: null }],
    ['Count: 12', { pieceCount: null }],
    ['Pieces: 54.5', { pieceCount: null }],
    ['Pieces: fifty-four', { pieceCount: null }],
    // A count given as a product is the product (each was read as its first factor: 6, 2, 6, 9, 1).
    ['Pieces: 6 x 9', { pieceCount: 54 }],
    ['Total pieces: 2 × 27', { pieceCount: 54 }],
    ['Number of pieces: 6 rows x 9 columns', { pieceCount: 54 }],
    ['Grid: 6 x 9 pieces', { grid: { rows: 6, cols: 9 }, pieceCount: 54 }],
    ['A 6 x 9 piece puzzle.', { pieceCount: 54 }],
    ['Pieces: 1 000', { pieceCount: 1000 }],
    ['It has 1 000 pieces.', { pieceCount: 1000 }],
  ];
  it.each(table)('%j', (end, expected) => {
    expect(parseMeta(withEnd(end))).toMatchObject(expected);
  });

  it('reads nothing from a body full of numbers and the words landscape/portrait', () => {
    expect(parseMeta(BODY)).toEqual({ orientation: null, grid: null, pieceCount: null });
    expect(parseMeta(`${BODY}\nThere are 3 pigs and two ducks.`)).toEqual({ orientation: null, grid: null, pieceCount: null });
  });

  it('does not read free statements outside the closing paragraph, but does read labelled lines', () => {
    expect(parseMeta('A 54-piece puzzle in landscape orientation.\n\nThe sky is blue.')).toEqual({
      orientation: null,
      grid: null,
      pieceCount: null,
    });
    expect(parseMeta('Pieces: 54\nOrientation: portrait\n\nThe sky is blue.')).toEqual({
      orientation: 'portrait',
      grid: null,
      pieceCount: 54,
    });
  });

  it('prefers the statement nearest the end', () => {
    const text = withEnd('Grid: 6 x 9\nPieces: 54\nOrientation: portrait\nCorrection: orientation: landscape\nGrid: 9 x 6\n48 pieces');
    expect(parseMeta(text)).toEqual({ orientation: 'portrait', grid: { rows: 9, cols: 6 }, pieceCount: 48 });
    expect(parseMeta(withEnd('It is 6 rows by 9 columns, or rather 7 rows by 9 columns.')).grid).toEqual({ rows: 7, cols: 9 });
  });

  it('reads a one-line summary sentence', () => {
    expect(parseMeta(withEnd('A landscape-oriented puzzle of 54 pieces arranged in 9 columns × 6 rows.'))).toEqual({
      orientation: 'landscape',
      grid: { rows: 6, cols: 9 },
      pieceCount: 54,
    });
  });
});

describe('scoreMeta', () => {
  const truth = { orientation: 'landscape' as const, grid: { rows: 6, cols: 9 }, pieces: 54 };

  it('a transposed grid is not correct but is flagged transposed', () => {
    const s = scoreMeta(parseMeta(withEnd('Grid: 9 x 6')), truth);
    expect(s.grid).toEqual({ stated: { rows: 9, cols: 6 }, correct: false, transposed: true });
  });

  it('a wrong grid is neither correct nor transposed', () => {
    expect(scoreMeta(parseMeta('6 x 8'), truth).grid).toEqual({ stated: { rows: 6, cols: 8 }, correct: false, transposed: false });
  });

  it('piece count error is relative: |48 − 54| / 54, |60 − 54| / 54', () => {
    expect(scoreMeta(parseMeta('48 pieces'), truth).pieceCount).toEqual({ stated: 48, error: 6 / 54 });
    expect(scoreMeta(parseMeta('Pieces: 60'), truth).pieceCount.error).toBe(6 / 54);
    expect(scoreMeta(parseMeta('Pieces: 540'), truth).pieceCount.error).toBe(9);
  });

  it('not stated → null and not correct', () => {
    const s = scoreMeta(parseMeta('Nothing here.'), truth);
    expect(s.orientation).toEqual({ stated: null, correct: false });
    expect(s.grid).toEqual({ stated: null, correct: false, transposed: false });
    expect(s.pieceCount).toMatchObject({ stated: null, error: null });
  });

  it('wrong orientation is not correct', () => {
    expect(scoreMeta(parseMeta('Orientation: portrait'), truth).orientation).toEqual({ stated: 'portrait', correct: false });
  });

  it('without a truth field: correct is null with a reason; piece count falls back to rows × cols', () => {
    const s = scoreMeta(parseMeta('Orientation: portrait\nPieces: 60'), { grid: { rows: 6, cols: 9 } });
    expect(s.orientation).toMatchObject({ stated: 'portrait', correct: null });
    expect(s.orientation.reason).toMatch(/no orientation/);
    expect(s.pieceCount).toEqual({ stated: 60, error: 6 / 54 });
    expect(scoreMeta(parseMeta('Pieces: 60'), {}).grid).toMatchObject({ correct: null, transposed: null });
  });
});

describe('parseMeta properties', () => {
  it('never throws and always returns the three fields with valid values', () => {
    const pieces = fc.constantFrom(
      'Grid:', 'Orientation:', 'Pieces:', 'rows', 'columns', ' x ', '×', 'by', '**', '_', '\n', '\n\n', '1,000', '54', '6', '9',
      'landscape', 'portrait', 'pieces', '-', '.', ',', '\u202f', '\r\n',
    );
    const text = fc.oneof(fc.string({ maxLength: 300 }), fc.array(fc.oneof(pieces, fc.string({ maxLength: 5 })), { maxLength: 60 }).map((a) => a.join('')));
    fc.assert(
      fc.property(text, (t) => {
        const m = parseMeta(t);
        expect(m.orientation === null || m.orientation === 'landscape' || m.orientation === 'portrait').toBe(true);
        if (m.grid) expect(Number.isSafeInteger(m.grid.rows) && m.grid.rows > 0 && Number.isSafeInteger(m.grid.cols) && m.grid.cols > 0).toBe(true);
        if (m.pieceCount !== null) expect(Number.isSafeInteger(m.pieceCount) && m.pieceCount > 0).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips generated labelled statements', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 99_999 }),
        fc.constantFrom('landscape' as const, 'portrait' as const),
        (rows, cols, n, o) => {
          const count = n.toLocaleString('en-US');
          expect(parseMeta(withEnd(`Orientation: ${o}\nGrid: ${rows} × ${cols}\nPieces: ${count}`))).toEqual({
            orientation: o,
            grid: { rows, cols },
            pieceCount: n,
          });
        },
      ),
    );
  });

  it('does not choke on non-strings or huge inputs', () => {
    expect(parseMeta(undefined as unknown as string)).toEqual({ orientation: null, grid: null, pieceCount: null });
    expect(parseMeta('6'.repeat(100_000) + ' x 9')).toMatchObject({ grid: null });
  });
});

describe('parseMeta: the statement nearest the end wins however long a line is', () => {
  it('a statement late in a line of over a million characters does not beat the next line', () => {
    // Positions were line index × 1e6 + offset in the line: past 1e6 characters a statement on line 0
    // ranked after every statement on line 1, so the earlier grid, orientation and count were reported.
    const long = `${'x'.repeat(1_100_000)}. Grid: 6 x 9. Orientation: portrait. Pieces: 54`;
    expect(parseMeta(`${long}\nGrid: 7 x 8\nOrientation: landscape\nPieces: 56`)).toEqual({
      orientation: 'landscape',
      grid: { rows: 7, cols: 8 },
      pieceCount: 56,
    });
    expect(parseMeta(`Grid: 7 x 8\n${long}`).grid).toEqual({ rows: 6, cols: 9 });
  });
});
