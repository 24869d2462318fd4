import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { cliDatabaseEnv, ENGINES } from '../helpers/db.ts';

/** Each step spawns the real binary (and PGlite opens its data directory): slow on a busy machine. */
const SLOW = 300_000;

/**
 * `assay export` → `assay import export` through the real binary: the assembly scores come back as
 * exported (the text says so), and a score that differs from the stored one exits 2 naming the line.
 */
for (const engine of ENGINES) {
  describe(`assay import export: assembly scores [${engine}]`, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'assay-cli-ie-'));
    let env: NodeJS.ProcessEnv = {};
    let drop: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      ({ env, drop } = await cliDatabaseEnv(engine, tmp));
    });
    afterAll(async () => {
      await drop?.().catch(() => {});
      rmSync(tmp, { recursive: true, force: true });
    });

    it('export, then import into the same database: unchanged; an edited score: exit 2 naming the line', () => {
      expect(runCli(['import', 'rubrics', 'rubrics/farmyard.yaml'], { env }).code).toBe(0);
      expect(runCli(['import', 'puzzles', 'rubrics/examples/puzzles'], { env }).code).toBe(0);
      expect(runCli(['import', 'answers', 'rubrics/examples/runs/grid-examples.jsonl'], { env }).code).toBe(0);
      const out = join(tmp, 'export');
      const ex = runCli(['export', '--run', 'grid-examples', '--out', out, '--format', 'jsonl', '--json'], { env });
      expect(ex.code, ex.stderr).toBe(0);
      const n = (ex.json() as { rows: Record<string, number> }).rows.assembly_scores!;
      expect(n).toBeGreaterThan(0);
      const again = runCli(['import', 'export', out], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(`0 assembly scores as exported (${n} unchanged)`);
      const edited = join(tmp, 'edited');
      cpSync(out, edited, { recursive: true });
      const file = join(edited, 'assembly_scores.jsonl');
      const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { direct: number; answer: string });
      writeFileSync(file, rows.map((r, i) => `${JSON.stringify(i === 0 ? { ...r, direct: r.direct === 0 ? 1 : 0 } : r)}\n`).join(''));
      const r = runCli(['import', 'export', edited], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`${file}:1: the database holds another assembly score of answer '${rows[0]!.answer}' (direct differs`);
    }, SLOW);
  });
}
