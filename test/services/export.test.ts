import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb, ENGINES, openTestDatabase } from '../helpers/db.ts';

/**
 * `assay export` of a seeded run: JSONL and Parquet hold the same rows, the dataset card names the rubric
 * and judge hashes, and export → import into an empty database → export gives the same files.
 */

const NOW = new Date('2026-12-01T00:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'assay-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const read = (d: string, f: string) => readFileSync(join(d, f), 'utf8');
const lines = (d: string, f: string) => read(d, f).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describeDb('run export', (ctx) => {
  let run = '';
  let out = '';
  beforeAll(async () => {
    await seedExamples(ctx.database);
    // A run with descriptions graded by judges, human labels and scored assemblies: every table has rows.
    const r = await ctx.database.execute(`select r.name from runs r join answers a on a.run_id = r.id join labels l on l.answer_id = a.id
      where exists (select 1 from answers b join assembly_scores s on s.answer_id = b.id where b.run_id = r.id) group by r.name order by r.name limit 1`);
    run = String(r.rows[0]!.name);
    out = join(dir, `${ENGINES[0]}-${Math.random().toString(36).slice(2)}`);
  }, 120_000);

  it('writes every table as JSONL and Parquet with the same rows, and a dataset card', async () => {
    const r = await exportRun(ctx.database, { run, out, license: 'cc-by-4.0', now: NOW });
    expect(r.files).toEqual(readdirSync(out).sort());
    for (const t of ['answers', 'grades', 'grade_items', 'labels', 'assembly_scores']) {
      expect(r.rows[t], t).toBeGreaterThan(0);
      const jsonl = lines(out, `${t}.jsonl`);
      expect(jsonl).toHaveLength(r.rows[t]!);
      const buf = readFileSync(join(out, `${t}.parquet`));
      const parquet = (await parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) })) as Record<string, unknown>[];
      // answers.jsonl leaves null fields out (the import format); every other table writes them.
      const back = t === 'answers' ? parquet.map((row) => Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null))) : parquet;
      expect(back, t).toEqual(jsonl);
    }
    const stored = await ctx.database.execute(`select count(*)::int as n from grades g join answers a on a.id = g.answer_id join runs r on r.id = a.run_id where r.name = $1`, [run]);
    expect(r.rows.grades).toBe(stored.rows[0]!.n);
    const card = read(out, 'README.md');
    expect(card.startsWith('---\nlicense: cc-by-4.0\n')).toBe(true);
    expect(card).toContain('- config_name: grade_items\n    data_files: grade_items.parquet');
    const judges = JSON.parse(read(out, 'judges.json')) as { slug: string; configHash: string }[];
    expect(judges.length).toBeGreaterThan(0);
    for (const j of judges) {
      expect(card).toContain(`| \`${j.slug}\` |`);
      expect(card).toContain(j.configHash);
    }
    const rubric = lines(out, 'rubrics.jsonl')[0]!;
    expect(card).toContain(`Content hash \`${String(rubric.contentHash)}\``);
    expect(card).toMatch(/\| rubric item verdicts — human \| \d+ \| 2 \|/);
  });

  it('export → import into an empty database → export gives the same files; importing again changes nothing', async () => {
    const fresh = await openTestDatabase(ENGINES[0]!);
    let db: Database | undefined = fresh.database;
    try {
      const first = await importRunExport(db, out);
      expect(first.answers.unchanged).toBe(0);
      expect(first.grades).toEqual({ stored: lines(out, 'grades.jsonl').length, unchanged: 0 });
      expect(first.labels.inserted).toBe(lines(out, 'labels.jsonl').length);
      const again = await importRunExport(db, out);
      expect(again).toMatchObject({ answers: { imported: 0 }, grades: { stored: 0 }, labels: { inserted: 0 } });
      const out2 = `${out}-again`;
      await exportRun(db, { run, out: out2, license: 'cc-by-4.0', now: NOW });
      for (const f of readdirSync(out)) expect(read(out2, f), f).toEqual(read(out, f));
    } finally {
      await fresh.drop();
      db = undefined;
    }
  }, 120_000);

  it('import refuses a partial export (a file missing) and writes nothing; export leaves no temporary directory', async () => {
    const partial = `${out}-partial`;
    cpSync(out, partial, { recursive: true });
    rmSync(join(partial, 'grades.jsonl'));
    const fresh = await openTestDatabase(ENGINES[0]!);
    try {
      await expect(importRunExport(fresh.database, partial)).rejects.toThrow(/no grades\.jsonl \(an assay export writes answers\.jsonl, grades\.jsonl/);
      expect((await fresh.database.execute('select count(*)::int as n from answers')).rows[0]!.n).toBe(0);
    } finally {
      await fresh.drop();
    }
    expect(readdirSync(dir).filter((f) => f.includes('.partial-'))).toEqual([]);
  }, 120_000);

  it('into the database it came from: unchanged; a grade that differs from the stored one is refused, nothing written', async () => {
    const same = await importRunExport(ctx.database, out);
    expect(same).toMatchObject({ answers: { imported: 0 }, grades: { stored: 0 }, labels: { inserted: 0 } });
    const edited = `${out}-edited`;
    cpSync(out, edited, { recursive: true });
    const grades = lines(edited, 'grades.jsonl');
    const target = grades.findIndex((g) => typeof g.f1 === 'number');
    grades[target] = { ...grades[target], f1: (grades[target]!.f1 as number) / 2 };
    writeFileSync(join(edited, 'grades.jsonl'), grades.map((g) => `${JSON.stringify(g)}\n`).join(''));
    const count = `select count(*)::int as n, sum(f1) as s from grades`;
    const before = (await ctx.database.execute(count)).rows;
    await expect(importRunExport(ctx.database, edited)).rejects.toThrow(new RegExp(`grades\\.jsonl:${target + 1}: the database holds another grade of answer`));
    expect((await ctx.database.execute(count)).rows).toEqual(before);
  }, 120_000);

  it('refuses a directory that is not empty, and an unknown run, writing nothing', async () => {
    await expect(exportRun(ctx.database, { run, out })).rejects.toThrow(/not empty \(\d+ entries\); export into a new or empty directory/);
    await expect(exportRun(ctx.database, { run: 'no-such-run', out: join(dir, 'none') })).rejects.toThrow(/no-such-run/);
    expect(() => readdirSync(join(dir, 'none'))).toThrow();
  });
});
