import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { runCli } from '../helpers/cli.ts';
import { ENGINES, cliDatabaseEnv } from '../helpers/db.ts';
import { seedJudgeCompare } from '../services/judge-compare-fixture.ts';

/** Each step spawns the real binary (and PGlite opens its data directory): slow on a busy machine. */
const SLOW = 300_000;

for (const engine of ENGINES) {
  describe(`assay judge compare through the binary [${engine}]`, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'assay-jc-'));
    let env: NodeJS.ProcessEnv = {};
    let drop: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      ({ env, drop } = await cliDatabaseEnv(engine, tmp));
      const db = engine === 'postgres' ? await openDatabase({ url: env.DATABASE_URL!, max: 1 }) : await openDatabase({ dataDir: join(tmp, 'data') });
      try {
        await migrate(db);
        await seedJudgeCompare(db);
      } finally {
        await db.close();
      }
    }, SLOW);
    afterAll(async () => {
      await drop?.().catch(() => {});
      rmSync(tmp, { recursive: true, force: true });
    });

    it('--json: the hand-checked figures; the same seed gives the same document', () => {
      const args = ['judge', 'compare', '--run', 'jc', '--judge', 'old', '--judge', 'new', '--top', '2', '--seed', '3', '--resamples', '200', '--json'];
      const r = runCli(args, { env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const doc = r.json();
      expect(doc).toMatchObject({ run: 'jc', units: 6, answers: 3, dropped: { total: 3 }, bootstrap: { seed: 3, resamples: 200 } });
      expect(doc.a.kappa.kappa).toBeCloseTo(5 / 9, 12);
      expect(doc.b.kappa.kappa).toBeCloseTo(19 / 25, 12);
      expect(doc.difference.kappa.estimate).toBeCloseTo(46 / 225, 12);
      expect(doc.f1Moves.top).toHaveLength(2);
      expect(runCli(args, { env }).json()).toEqual(doc);
    }, SLOW);

    it('the readable table names both judges, the dropped reasons, the flips and the F1 moves', () => {
      const r = runCli(['judge', 'compare', '--run', 'jc', '--judge', 'old', '--judge', 'new'], { env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('1  the human labels tie (no majority)');
      expect(r.stdout).toMatch(/^old +0\.6667 +0\.5556 /m);
      expect(r.stdout).toMatch(/^new +0\.8333 +0\.7600 /m);
      expect(r.stdout).toMatch(/^kappa +0\.2044 /m);
      expect(r.stdout).toMatch(/^farmyard-54\/cow-in-barn +3 +2 +2 +0 +0 +correct→missing 1, incorrect→missing 1$/m);
      expect(r.stdout).toMatch(/^x6 +0\.1000 +0\.9000 +0\.8000 +no$/m);
    }, SLOW);

    it('a judge with no grades of the run: exit 2, one line suggesting assay run', () => {
      const r = runCli(['judge', 'compare', '--run', 'jc', '--judge', 'old', '--judge', 'idle'], { env });
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: "assay judge compare: judge 'idle' has no grades for run 'jc'; grade it first: assay run --run jc --judge idle\n",
      });
    }, SLOW);
  });
}
