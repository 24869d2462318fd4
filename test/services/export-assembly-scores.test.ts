import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importAnswersJsonl } from '../../src/services/import-answers.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { describeDb, ENGINES, openTestDatabase, rowCounts } from '../helpers/db.ts';

/**
 * `assay import export` keeps the assembly scores of the export (assembly_scores.jsonl) as the user's
 * numbers: before, it ignored that file and scored every assemble answer again with today's scorer, so an
 * export made with an older scorer (or of a run imported with --no-score) came back with other numbers,
 * exit 0. A score that differs from the one the database holds for that answer is refused, never replaced.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-asm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const puzzle = { id: 'p22', rows: 2, cols: 2, layout: [['a', 'b'], ['c', 'd']] };
const row = (id: string, text: string) => JSON.stringify({ id, run: 'asm', model: 'm', task: 'assemble', puzzle: 'p22', text });
const SCORES = `select a.external_id, s.status, s.problems, s.direct, s.exact_match, s.neighbour, s.adjacency, s.proximity, s.shape_compatibility, s.by_position
  from assembly_scores s join answers a on a.id = s.answer_id order by a.external_id`;
const scores = async (db: Database) => (await db.execute(SCORES)).rows;
const lines = (d: string, f: string) => readFileSync(join(d, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
const write = (d: string, f: string, rows: Record<string, unknown>[]) => writeFileSync(join(d, f), rows.map((r) => `${JSON.stringify(r)}\n`).join(''));

describeDb('assembly scores of a run export', (ctx) => {
  const out = join(dir, `${ENGINES[0]}-${Math.random().toString(36).slice(2)}`);
  beforeAll(async () => {
    await importPuzzles(ctx.database, [{ path: 'p.jsonl', content: JSON.stringify(puzzle) }]);
    await importAnswersJsonl(ctx.database, { path: 'a.jsonl', content: `${row('right', 'a b\nc d')}\n${row('swapped', 'b a\nc d')}\n` });
    // Imported unscored: the run holds no score for it, and neither should its copy.
    await importAnswersJsonl(ctx.database, { path: 'b.jsonl', content: `${row('unscored', 'a b\nc d')}\n` }, { score: false });
    await exportRun(ctx.database, { run: 'asm', out });
  }, 60_000);

  it('into an empty database: the scores as exported, also those today’s scorer would compute otherwise; none for an unscored answer', async () => {
    expect(lines(out, 'assembly_scores.jsonl').map((s) => [s.answer, s.direct])).toEqual([['right', 1], ['swapped', 0.5]]);
    const edited = `${out}-older-scorer`;
    cpSync(out, edited, { recursive: true });
    // As an older scorer wrote it: 'swapped' got a direct of 0.25 and a problem note.
    write(edited, 'assembly_scores.jsonl', lines(out, 'assembly_scores.jsonl').map((s) => (s.answer === 'swapped' ? { ...s, direct: 0.25, problems: ['older note'] } : s)));
    const fresh = await openTestDatabase(ENGINES[0]!);
    try {
      const r = await importRunExport(fresh.database, edited);
      expect(r.assemblyScores).toEqual({ stored: 2, unchanged: 0 });
      const source = await scores(ctx.database);
      const expected = source.map((s) => (s.external_id === 'swapped' ? { ...s, direct: 0.25, problems: ['older note'] } : s));
      expect(await scores(fresh.database)).toEqual(expected);
      // Again: nothing written.
      const before = await rowCounts(fresh.database);
      expect((await importRunExport(fresh.database, edited)).assemblyScores).toEqual({ stored: 0, unchanged: 2 });
      expect(await rowCounts(fresh.database)).toEqual(before);
    } finally {
      await fresh.drop();
    }
  }, 60_000);

  it('into the database it came from: unchanged; a score that differs from the stored one is refused, nothing written', async () => {
    expect((await importRunExport(ctx.database, out)).assemblyScores).toEqual({ stored: 0, unchanged: 2 });
    const edited = `${out}-differs`;
    cpSync(out, edited, { recursive: true });
    write(edited, 'assembly_scores.jsonl', lines(out, 'assembly_scores.jsonl').map((s) => (s.answer === 'swapped' ? { ...s, neighbour: 0 } : s)));
    const before = await scores(ctx.database);
    await expect(importRunExport(ctx.database, edited)).rejects.toThrow(
      `${join(edited, 'assembly_scores.jsonl')}:2: the database holds another assembly score of answer 'swapped' (neighbour differs: stored 0.25, this file 0); assembly scores are not replaced by an import`,
    );
    expect(await scores(ctx.database)).toEqual(before);
  }, 60_000);

  it('refuses a score of an answer the export does not hold, or of one that is no assembly', async () => {
    const edited = `${out}-stray`;
    cpSync(out, edited, { recursive: true });
    const [first] = lines(out, 'assembly_scores.jsonl');
    write(edited, 'assembly_scores.jsonl', [first!, { ...first!, answer: 'ghost' }]);
    const fresh = await openTestDatabase(ENGINES[0]!);
    try {
      await expect(importRunExport(fresh.database, edited)).rejects.toThrow(`${join(edited, 'assembly_scores.jsonl')}:2: answer: 'ghost' is not an answer in answers.jsonl`);
      write(edited, 'assembly_scores.jsonl', [first!, first!]);
      await expect(importRunExport(fresh.database, edited)).rejects.toThrow(`${join(edited, 'assembly_scores.jsonl')}:2: answer: a second score of 'right' (first on line 1)`);
      expect((await rowCounts(fresh.database)).answers).toBe(0);
    } finally {
      await fresh.drop();
    }
  }, 60_000);

  it('an export written before assembly_scores.jsonl: the assemble answers are scored, as before', async () => {
    const old = `${out}-old`;
    cpSync(out, old, { recursive: true });
    rmSync(join(old, 'assembly_scores.jsonl'));
    const fresh = await openTestDatabase(ENGINES[0]!);
    try {
      expect((await importRunExport(fresh.database, old)).assemblyScores).toEqual({ stored: 3, unchanged: 0 });
      expect((await scores(fresh.database)).map((s) => [s.external_id, s.direct])).toEqual([['right', 1], ['swapped', 0.5], ['unscored', 1]]);
    } finally {
      await fresh.drop();
    }
  }, 60_000);
});
