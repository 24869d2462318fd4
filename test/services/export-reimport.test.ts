import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { describeDb, ENGINES, rowCounts } from '../helpers/db.ts';
import { seedRun, storedGrades } from './export-fixture.ts';

/**
 * `assay import export` into the database the run came from changes nothing (docs/formats.md#run-exports),
 * also when the run's grades were made against two versions of its rubric.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-reimport-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeDb('run export imported into its own database', (ctx) => {
  const out = join(dir, `${ENGINES[0]}-${Math.random().toString(36).slice(2)}`);
  beforeAll(async () => {
    await seedRun(ctx.database);
    await exportRun(ctx.database, { run: 'rt-run', out });
  }, 60_000);

  it('into the database it came from (grades on two rubric versions): nothing written, every row unchanged', async () => {
    const before = await rowCounts(ctx.database);
    const grades = await storedGrades(ctx.database);
    const r = await importRunExport(ctx.database, out);
    expect(r).toMatchObject({ rubrics: { created: 0 }, answers: { imported: 0 }, grades: { stored: 0, unchanged: 4 }, labels: { inserted: 0 } });
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(await storedGrades(ctx.database)).toEqual(grades);
  }, 60_000);
});
