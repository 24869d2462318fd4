import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportRun } from '../../src/services/export/write-export.ts';
import { describeDb } from '../helpers/db.ts';
import { seedRun } from './export-fixture.ts';

/**
 * `assay export --out PATH` where PATH is a file (or lies under one) is bad input (exit 2, one line), and
 * the file is left as it was. Before, the not-empty check read a file as an empty directory, the export was
 * written beside it and the final rename failed: an internal error (exit 1) with a stack trace.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-out-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeDb('run export --out', (ctx) => {
  beforeAll(async () => {
    await seedRun(ctx.database);
  }, 60_000);

  it('refuses a file, or a path under one, as bad input; the file unchanged, nothing left beside it', async () => {
    const file = join(dir, `f-${Math.random().toString(36).slice(2)}`);
    writeFileSync(file, 'kept');
    const before = readdirSync(dir).sort();
    for (const out of [file, join(file, 'sub')]) {
      await expect(exportRun(ctx.database, { run: 'rt-run', out })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/^--out .*: not a directory/) });
    }
    expect(readFileSync(file, 'utf8')).toBe('kept');
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});
