import { badInput } from '../domain/errors.ts';
import type { ImportFile, Located } from './import-parse.ts';

/**
 * CSV (RFC 4180: quoted fields may hold commas, newlines and "" for a quote) into one object per
 * record keyed by the header. Empty cells become absent fields, so optional columns can stay blank.
 * Each record remembers the line it starts on. TSV is the same with a tab between fields.
 */
export function parseCsv(file: ImportFile, delimiter: ',' | '\t' = ','): Located[] {
  const records = splitRecords(file, delimiter);
  const header = records.shift();
  if (!header) throw badInput(`${file.path}: empty (expected a header line)`);
  const names = header.cells.map((h) => h.trim());
  names.forEach((n, i) => {
    if (n === '') throw badInput(`${file.path}:${header.line}: column ${i + 1} has no name`);
    if (names.indexOf(n) !== i) throw badInput(`${file.path}:${header.line}: duplicate column '${n}'`);
  });
  const out: Located[] = [];
  for (const rec of records) {
    // A blank line is skipped; a quoted blank cell ("" or " ") is a record like any other.
    if (!rec.quoted && rec.cells.length === 1 && rec.cells[0]!.trim() === '') continue;
    if (rec.cells.length !== names.length) {
      throw badInput(`${file.path}:${rec.line}: has ${rec.cells.length} fields, the header has ${names.length}`);
    }
    const value: Record<string, string> = {};
    names.forEach((n, i) => {
      const cell = rec.cells[i]!;
      if (cell !== '') value[n] = cell;
    });
    out.push({ value, file: file.path, line: rec.line, lineOf: () => rec.line });
  }
  if (out.length === 0) throw badInput(`${file.path}: no records after the header`);
  return out;
}

function splitRecords(file: ImportFile, delimiter: string): Array<{ line: number; cells: string[]; quoted: boolean }> {
  const text = file.content.replace(/^\uFEFF/, '');
  const records: Array<{ line: number; cells: string[]; quoted: boolean }> = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let anyQuoted = false;
  let line = 1;
  let start = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
        // Anything but a delimiter or a line end here is an unescaped quote: gluing the rest on would
        // store a cell the file never held (RFC 4180 writes a quote inside a field as "").
        const next = text[i + 1];
        if (next !== undefined && next !== delimiter && next !== '\n' && next !== '\r') {
          throw badInput(`${file.path}:${line}: column ${cells.length + 1}: text after the closing quote of a quoted field (a quote inside one is written "")`);
        }
      } else {
        if (ch === '\n') line++;
        cell += ch;
      }
      continue;
    }
    if (ch === '"' && cell === '') quoted = anyQuoted = true;
    else if (ch === delimiter) {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      cells.push(cell);
      records.push({ line: start, cells, quoted: anyQuoted });
      cells = [];
      cell = '';
      anyQuoted = false;
      line++;
      start = line;
    } else cell += ch;
  }
  if (quoted) throw badInput(`${file.path}:${start}: unterminated quoted field`);
  if (cell !== '' || cells.length > 0 || anyQuoted) {
    cells.push(cell);
    records.push({ line: start, cells, quoted: anyQuoted });
  }
  return records;
}
