import fc from 'fast-check';
import { expect, it } from 'vitest';
import { parseCsv } from '../../src/services/import-csv.ts';

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

it('round-trips any non-empty cells written with RFC 4180 quoting (commas, quotes, newlines)', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 4 }),
      fc.array(fc.array(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 4, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
      fc.constantFrom('\n', '\r\n'),
      (names, rows, eol) => {
        const body = rows.map((r) => names.map((_, i) => quote(r[i]!)).join(',')).join(eol);
        const parsed = parseCsv({ path: 'p.csv', content: names.join(',') + eol + body + eol });
        expect(parsed.map((p) => p.value)).toEqual(rows.map((r) => Object.fromEntries(names.map((n, i) => [n, r[i]!]))));
      },
    ),
    { seed: 4180, numRuns: 300 },
  );
});

it('keeps a one-column record whose quoted cell is blank; skips a truly blank line', () => {
  // fast-check found this one: a quoted " " was taken for a blank line and dropped.
  expect(parseCsv({ path: 'x.csv', content: 'a\n" "\n\n"b"\n' }).map((r) => r.value)).toEqual([{ a: ' ' }, { a: 'b' }]);
  expect(parseCsv({ path: 'x.csv', content: 'a\n" "' }).map((r) => r.value)).toEqual([{ a: ' ' }]);
});

it('names the line a record starts on, counting newlines inside quoted fields', () => {
  const csv = 'a,b\n1,"two\nlines"\n3,4\n';
  const rows = parseCsv({ path: 'x.csv', content: csv });
  expect(rows.map((r) => [r.line, r.value])).toEqual([
    [2, { a: '1', b: 'two\nlines' }],
    [4, { a: '3', b: '4' }],
  ]);
  expect(() => parseCsv({ path: 'x.csv', content: 'a,b\n1,2\n3\n' })).toThrow('x.csv:3: has 1 fields, the header has 2');
  expect(() => parseCsv({ path: 'x.csv', content: 'a,b\n1,"oops\n' })).toThrow('x.csv:2: unterminated quoted field');
  expect(() => parseCsv({ path: 'x.csv', content: 'a,a\n1,2\n' })).toThrow("x.csv:1: duplicate column 'a'");
  expect(parseCsv({ path: 'x.csv', content: '\uFEFFa,b\n,2\n' }).map((r) => r.value)).toEqual([{ b: '2' }]);
});

it('refuses text after a closing quote instead of gluing it on (an unescaped quote inside a quoted field)', () => {
  // Before: '"He said "hi"",x' read as the cell 'He said hi""' with exit 0.
  expect(() => parseCsv({ path: 'x.csv', content: 'a,b\n1,2\n"He said "hi"",x\n' })).toThrow(
    'x.csv:3: column 1: text after the closing quote of a quoted field (a quote inside one is written "")',
  );
  expect(() => parseCsv({ path: 'x.csv', content: 'a,b\n"one" ,2\n' })).toThrow('x.csv:2: column 1: text after the closing quote');
  expect(() => parseCsv({ path: 'x.tsv', content: 'a\tb\nx\t"y"z\n' }, '\t')).toThrow('x.tsv:2: column 2: text after the closing quote');
  // A quote closing the field before a delimiter, a line end or the end of the file is fine.
  expect(parseCsv({ path: 'x.csv', content: 'a,b\n"He said ""hi""","x"\r\n"y",z' }).map((r) => r.value)).toEqual([
    { a: 'He said "hi"', b: 'x' },
    { a: 'y', b: 'z' },
  ]);
});
