import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { describeDb, ENGINES, openTestDatabase, rowCounts } from '../helpers/db.ts';
import { seedRun, storedGrades } from './export-fixture.ts';

/**
 * `assay import export` into the database the run came from changes nothing (docs/formats.md#run-exports),
 * also when the run's grades were made against two versions of its rubric; a grade that is not the stored
 * one under its key is refused, never counted unchanged.
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
    expect(r).toMatchObject({ rubrics: { created: 0 }, answers: { imported: 0 }, grades: { stored: 0, unchanged: 4 }, labels: { inserted: 0, unchanged: 6 } });
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(await storedGrades(ctx.database)).toEqual(grades);
  }, 60_000);

  it('refuses a grade whose items differ from the stored one (same scores), writing nothing', async () => {
    const edited = `${out}-items`;
    cpSync(out, edited, { recursive: true });
    const grades = readFileSync(join(edited, 'grades.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { items: Array<{ evidence: string; verdict: string }> | null });
    // Same status and scores; the first item's verdict and evidence say something else.
    const target = grades.findIndex((g) => (g.items?.length ?? 0) > 0);
    grades[target]!.items![0] = { ...grades[target]!.items![0]!, verdict: 'partial', evidence: 'another reading' };
    writeFileSync(join(edited, 'grades.jsonl'), grades.map((g) => `${JSON.stringify(g)}\n`).join(''));
    const before = await storedGrades(ctx.database);
    await expect(importRunExport(ctx.database, edited)).rejects.toThrow(new RegExp(`grades\\.jsonl:${target + 1}: .*items.* grades are not replaced by an import`));
    expect(await storedGrades(ctx.database)).toEqual(before);
  }, 60_000);

  it('an older export (labels without campaign and rubric_version) still imports: plain labels of unknown version', async () => {
    const old = `${out}-old`;
    cpSync(out, old, { recursive: true });
    const rows = readFileSync(join(old, 'labels.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const plain = rows.filter((l) => l.campaign === null).map(({ campaign: _c, rubric_version: _v, ...rest }) => rest);
    writeFileSync(join(old, 'labels.jsonl'), plain.map((l) => `${JSON.stringify(l)}\n`).join(''));
    // The older export's card counted its own 2 labels; this copy's card counts the 6 of the export it was cut from.
    writeFileSync(join(old, 'README.md'), readFileSync(join(old, 'README.md'), 'utf8').replace(/^\| `labels` \| \d+ \|/m, `| \`labels\` | ${plain.length} |`));
    // Into its own database: the stored labels (their versions known) are these, unchanged.
    expect((await importRunExport(ctx.database, old)).labels).toEqual({ inserted: 0, unchanged: 2 });
    const fresh = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
    try {
      expect((await importRunExport(fresh.database, old)).labels).toEqual({ inserted: 2, unchanged: 0 });
      const stored = await fresh.database.execute(`select annotator, label, campaign_id, rubric_version_id from labels order by annotator`);
      expect(stored.rows).toEqual([
        { annotator: 'alice', label: 'correct', campaign_id: null, rubric_version_id: null },
        { annotator: 'bob', label: 'partial', campaign_id: null, rubric_version_id: null },
      ]);
    } finally {
      await fresh.drop();
    }
  }, 60_000);

  it('accepts whole-answer campaign keys (answer:binary, answer:numeric, claim:<n>) but refuses a key no label can have', async () => {
    for (const bad of ['zz', 'answer:other', 'claim:x', 'claim:01']) {
      const edited = `${out}-item-${bad.replace(/\W/g, '_')}`;
      cpSync(out, edited, { recursive: true });
      const rows = readFileSync(join(edited, 'labels.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      const at = rows.findIndex((l) => l.item === 'answer:binary');
      rows[at] = { ...rows[at]!, item: bad };
      writeFileSync(join(edited, 'labels.jsonl'), rows.map((l) => `${JSON.stringify(l)}\n`).join(''));
      const before = await rowCounts(ctx.database);
      await expect(importRunExport(ctx.database, edited), bad).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining(`labels.jsonl:${at + 1}: item: unknown item '${bad}'`) });
      expect(await rowCounts(ctx.database)).toEqual(before);
    }
  }, 60_000);
});
