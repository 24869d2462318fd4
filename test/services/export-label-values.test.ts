import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { describeDb, openTestDatabase, rowCounts } from '../helpers/db.ts';
import { seedRun } from './export-fixture.ts';

/**
 * A run export's labels.jsonl goes through the label file's checks (import-labels.ts storeLabelFile, the
 * annotation path's label-values.ts): a label no scale reads (written by an older version that stored any
 * text) is refused naming its line, nothing written — imported, every report would set it aside.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-values-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeDb('a run export with a label no scale reads', (ctx) => {
  const out = join(dir, `src-${Math.random().toString(36).slice(2)}`);
  beforeAll(async () => {
    await seedRun(ctx.database);
    await exportRun(ctx.database, { run: 'rt-run', out, format: 'jsonl' });
  }, 60_000);

  const cases: Array<[string, string, RegExp]> = [
    ['a verdict typo', 'a', /labels\.jsonl:(\d+): item 'a': label must be one of .*got 'corect'/],
    ['a claim label', 'claim:0', /labels\.jsonl:(\d+): claim 0: label must be one of true\|false\|unverifiable, got 'corect'/],
  ];
  for (const [name, item, message] of cases) {
    it(`${name}: refused naming the line and the value, nothing written`, async () => {
      const copy = `${out}-${Math.random().toString(36).slice(2)}`;
      cpSync(out, copy, { recursive: true });
      const lines = readFileSync(join(copy, 'labels.jsonl'), 'utf8').split('\n').filter(Boolean);
      // The last label of the item: the good lines before it are not written either.
      const at = lines.map((l) => JSON.parse(l) as { item?: string }).findLastIndex((l) => (l.item ?? '') === item);
      expect(at).toBeGreaterThan(0);
      lines[at] = JSON.stringify({ ...JSON.parse(lines[at]!), label: 'corect' });
      writeFileSync(join(copy, 'labels.jsonl'), lines.map((l) => `${l}\n`).join(''));
      const fresh = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
      try {
        const before = await rowCounts(fresh.database);
        const err = await importRunExport(fresh.database, copy).then(() => null, (e: unknown) => e as { code: string; message: string });
        expect(err?.code).toBe('bad_input');
        expect(err?.message).toMatch(message);
        expect(Number(message.exec(err!.message)![1])).toBe(at + 1);
        expect(await rowCounts(fresh.database)).toEqual(before);
      } finally {
        await fresh.drop();
      }
    }, 60_000);
  }
});
