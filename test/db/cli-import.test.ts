import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { cliDatabaseEnv, ENGINES } from '../helpers/db.ts';

/** Each step spawns the real binary (and PGlite opens its data directory): slow on a busy machine. */
const SLOW = 300_000;

/** `assay migrate` and `assay import …` through the real binary, on each engine. */
for (const engine of ENGINES) {
  describe(`assay migrate / import [${engine}]`, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'assay-cli-'));
    let env: NodeJS.ProcessEnv = {};
    let drop: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      ({ env, drop } = await cliDatabaseEnv(engine, tmp));
    });
    afterAll(async () => {
      await drop?.().catch(() => {});
      rmSync(tmp, { recursive: true, force: true });
    });

    it('migrate reports the engine and applies each migration once', () => {
      const r = runCli(['migrate', '--json'], { env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const doc = r.json();
      expect(doc.engine).toBe(engine);
      expect(doc.total).toBeGreaterThanOrEqual(2);
      // The helper already migrated the PostgreSQL database; the PGlite directory starts empty.
      expect(doc.applied).toBe(engine === 'postgres' ? 0 : doc.total);
      expect(runCli(['migrate', '--json'], { env }).json()).toMatchObject({ applied: 0, total: doc.total });
    }, SLOW);

    it('imports rubrics, puzzles and answers, printing counts', () => {
      const rub = runCli(['import', 'rubrics', 'rubrics/farmyard.yaml', '--json'], { env });
      expect(rub.code).toBe(0);
      expect(rub.json()).toMatchObject({ created: 1, versioned: 0, unchanged: 0 });
      const puz = runCli(['import', 'puzzles', 'rubrics/examples/puzzles', '--json'], { env });
      expect(puz.json()).toEqual({ created: 2, updated: 0, unchanged: 0 });
      const ans = runCli(['import', 'answers', 'rubrics/examples/runs/grid-examples.jsonl', '--json'], { env });
      expect(ans.code).toBe(0);
      expect(ans.json()).toMatchObject({ imported: 6, unchanged: 0, scored: 6, runs: [{ name: 'grid-examples', model: 'example', created: true }] });
    }, SLOW);

    it('a bad line exits 2 with one stderr line naming file, line and field, and writes nothing', () => {
      const bad = join(tmp, 'bad.jsonl');
      writeFileSync(bad, ['{"id":"x","task":"describe","rubric":"farmyard-54","text":"t"}', '{"id":"y","task":"describe","rubric":"farmyard-54","text":7}'].join('\n'));
      const r = runCli(['import', 'answers', bad, '--model', 'm', '--run', 'cli-bad'], { env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(new RegExp(`^assay import answers: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: text: `));
      // Nothing written: the good first line is not there either, so a corrected file imports both.
      writeFileSync(bad, ['{"id":"x","task":"describe","rubric":"farmyard-54","text":"t"}', '{"id":"y","task":"describe","rubric":"farmyard-54","text":"7"}'].join('\n'));
      const ok = runCli(['import', 'answers', bad, '--model', 'm', '--run', 'cli-bad', '--json'], { env });
      expect(ok.json()).toMatchObject({ imported: 2, unchanged: 0 });
    }, SLOW);

    it('labels from CSV; a missing file is bad input', () => {
      const csv = join(tmp, 'labels.csv');
      writeFileSync(csv, 'answer,item,rater,label\nx,barn,ann,correct\ny,,ann,3\n');
      const r = runCli(['import', 'labels', csv, '--run', 'cli-bad', '--json'], { env });
      expect(r.stderr).toBe('');
      expect(r.json()).toEqual({ inserted: 2, replaced: 0, unchanged: 0, runs: ['cli-bad'] });
      const missing = runCli(['import', 'labels', join(tmp, 'nope.csv')], { env });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/nope\.csv: no such file or directory/);
    }, SLOW);
  });
}
