import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { describeDb, ENGINES, openTestDatabase } from '../helpers/db.ts';
import { seedRun } from './export-fixture.ts';

/**
 * grades.jsonl of an export is read back as the grades it names: a status no grader writes ('okay', 'OK')
 * was stored as given (the column has no check), and every report then left the grade out or counted it
 * a failure, exit 0; a failed grade (provider_error, parse_failure …) carrying a score was stored with it,
 * where a judge failure is a status, never a score. Both are refused naming the line.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-gl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lines = (d: string) => readFileSync(join(d, 'grades.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describeDb('grade lines of a run export', (ctx) => {
  const out = join(dir, `${ENGINES[0]}-${Math.random().toString(36).slice(2)}`);
  beforeAll(async () => {
    await seedRun(ctx.database);
    await exportRun(ctx.database, { run: 'rt-run', out });
  }, 60_000);

  it('refuses a status no grader writes, and a failed grade with a score; nothing written', async () => {
    const file = join(`${out}-edited`, 'grades.jsonl');
    cpSync(out, `${out}-edited`, { recursive: true });
    const fresh = await openTestDatabase(ENGINES[0]!);
    try {
      const grades = lines(out);
      expect(grades[0]!.status).toBe('ok');
      writeFileSync(file, grades.map((g, i) => `${JSON.stringify(i === 0 ? { ...g, status: 'okay' } : g)}\n`).join(''));
      await expect(importRunExport(fresh.database, `${out}-edited`)).rejects.toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: status: `));
      const failed = grades.findIndex((g) => g.status === 'parse_failure');
      expect(failed).toBeGreaterThan(0);
      writeFileSync(file, grades.map((g, i) => `${JSON.stringify(i === failed ? { ...g, f1: 0.5 } : g)}\n`).join(''));
      await expect(importRunExport(fresh.database, `${out}-edited`)).rejects.toThrow(`${file}:${failed + 1}: f1: a 'parse_failure' grade has no scores (a judge failure is a status, never a score)`);
      expect((await fresh.database.execute('select count(*)::int as n from answers')).rows[0]!.n).toBe(0);
      // The file as exported imports.
      expect((await importRunExport(fresh.database, out)).grades.stored).toBe(grades.length);
    } finally {
      await fresh.drop();
    }
  }, 90_000);

  it('into the database it came from: a grade whose tokens, cost, latency, meta or prompt hash differ is refused, not counted unchanged', async () => {
    const file = join(`${out}-usage`, 'grades.jsonl');
    cpSync(out, `${out}-usage`, { recursive: true });
    const grades = lines(out);
    const edits: Array<[string, Record<string, unknown>]> = [
      ['input_tokens', { input_tokens: 999 }],
      ['cost_usd', { cost_usd: 9.5 }],
      ['latency_ms', { latency_ms: 12345 }],
      ['meta', { meta: { edited: true } }],
      ['prompt_hash', { prompt_hash: 'another-hash' }],
    ];
    for (const [field, edit] of edits) {
      writeFileSync(file, grades.map((g, i) => `${JSON.stringify(i === 0 ? { ...g, ...edit } : g)}\n`).join(''));
      await expect(importRunExport(ctx.database, `${out}-usage`), field).rejects.toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1: the database holds another grade .*; ${field} differ\\); grades are not replaced`));
    }
    // An older export without prompt_hash is the same grade.
    writeFileSync(file, grades.map((g) => { const { prompt_hash: _, ...rest } = g; return `${JSON.stringify(rest)}\n`; }).join(''));
    expect((await importRunExport(ctx.database, `${out}-usage`)).grades).toEqual({ stored: 0, unchanged: grades.length });
  }, 90_000);
});
