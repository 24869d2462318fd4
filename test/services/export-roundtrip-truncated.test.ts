import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { describeDb, openTestDatabase, rowCounts } from '../helpers/db.ts';
import { seedRun } from './export-fixture.ts';

/**
 * A run export cut short (a copy that stopped, a file emptied) is refused, exit 2, nothing written — never
 * imported as the run with fewer grades or labels. A file cut mid-line fails to parse; one cut at a line
 * end, or emptied, parses: the dataset card's row counts (README.md, written with every export) tell it.
 * The fixture's run: 4 answers, 4 grades, 6 labels.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-cut-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeDb('a truncated run export', (ctx) => {
  const out = join(dir, `src-${Math.random().toString(36).slice(2)}`);
  beforeAll(async () => {
    await seedRun(ctx.database);
    await exportRun(ctx.database, { run: 'rt-run', out, format: 'jsonl' });
  }, 60_000);

  /** A copy of the export with one file rewritten. */
  const cut = (file: string, edit: (text: string) => string): string => {
    const copy = `${out}-${file}-${Math.random().toString(36).slice(2)}`;
    cpSync(out, copy, { recursive: true });
    writeFileSync(join(copy, file), edit(readFileSync(join(copy, file), 'utf8')));
    return copy;
  };
  const dropLast = (t: string) => t.split('\n').filter(Boolean).slice(0, -1).map((l) => `${l}\n`).join('');

  const cases: Array<[string, string, (t: string) => string, RegExp]> = [
    ['grades.jsonl emptied', 'grades.jsonl', () => '', /grades\.jsonl: 0 rows, the dataset card \(README\.md\) says 4/],
    ['grades.jsonl without its last line', 'grades.jsonl', dropLast, /grades\.jsonl: 3 rows, the dataset card \(README\.md\) says 4/],
    ['labels.jsonl without its last line', 'labels.jsonl', dropLast, /labels\.jsonl: 5 rows, the dataset card \(README\.md\) says 6/],
    ['answers.jsonl without its last line', 'answers.jsonl', dropLast, /answers\.jsonl: 3 rows, the dataset card \(README\.md\) says 4/],
    ['grades.jsonl cut mid-line', 'grades.jsonl', (t) => t.slice(0, t.length - 40), /grades\.jsonl:4/],
  ];
  for (const [name, file, edit, message] of cases) {
    it(`${name}: refused naming the file, nothing written`, async () => {
      const copy = cut(file, edit);
      const fresh = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
      try {
        const before = await rowCounts(fresh.database);
        await expect(importRunExport(fresh.database, copy)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(message) });
        expect(await rowCounts(fresh.database)).toEqual(before);
      } finally {
        await fresh.drop();
      }
    }, 60_000);
  }

  it('the whole export imports (4 answers, 4 grades, 6 labels); a second import of it stores nothing', async () => {
    const fresh = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
    try {
      const first = await importRunExport(fresh.database, out);
      expect([first.answers.imported, first.grades.stored, first.labels.inserted]).toEqual([4, 4, 6]);
      const counts = await rowCounts(fresh.database);
      const again = await importRunExport(fresh.database, out);
      expect([again.answers, again.grades, again.labels]).toEqual([{ imported: 0, unchanged: 4 }, { stored: 0, unchanged: 4 }, { inserted: 0, unchanged: 6 }]);
      expect(await rowCounts(fresh.database)).toEqual(counts);
    } finally {
      await fresh.drop();
    }
  }, 60_000);
});
