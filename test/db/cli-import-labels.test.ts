import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { runCli } from '../helpers/cli.ts';
import { ENGINES, cliDatabaseEnv, rowCounts } from '../helpers/db.ts';

/** Each step spawns the real binary (and PGlite opens its data directory): slow on a busy machine. */
const SLOW = 300_000;
const jsonl = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/**
 * Issue 11 finding 2 through the real binary: `assay import labels` without --run on ids found in two
 * runs exits 2 naming them; changing stored labels (or puzzles) exits 2 saying how many until --replace.
 */
for (const engine of ENGINES) {
  describe(`assay import labels: no silent replacement [${engine}]`, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'assay-labels-'));
    let env: NodeJS.ProcessEnv = {};
    let drop: (() => Promise<void>) | undefined;
    const counts = async () => {
      const db = engine === 'postgres' ? await openDatabase({ url: env.DATABASE_URL!, max: 1 }) : await openDatabase({ dataDir: join(tmp, 'data') });
      try {
        return await rowCounts(db);
      } finally {
        await db.close();
      }
    };
    const file = (name: string, content: string) => {
      const p = join(tmp, name);
      writeFileSync(p, content);
      return p;
    };

    beforeAll(async () => {
      ({ env, drop } = await cliDatabaseEnv(engine, tmp));
      expect(runCli(['import', 'rubrics', 'rubrics/farmyard.yaml'], { env }).code).toBe(0);
      const answers = ['run-a', 'run-b'].flatMap((run) => [0, 1].map((id) => ({ id, run, model: `m-${run}`, task: 'describe', rubric: 'farmyard-54', text: `answer ${id}` })));
      const r = runCli(['import', 'answers', file('answers.jsonl', jsonl(...answers))], { env });
      expect(r.stderr).toBe('');
    }, SLOW);
    afterAll(async () => {
      await drop?.().catch(() => {});
      rmSync(tmp, { recursive: true, force: true });
    });

    it('ids found in several runs: exit 2, one line naming the runs, nothing written', async () => {
      const labels = file('l.jsonl', jsonl(...[0, 1].map((answer) => ({ answer, item: 'barn', rater: 'ann', label: 'correct' }))));
      const before = await counts();
      const r = runCli(['import', 'labels', labels], { env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`assay import labels: ${labels}:1: answer: answer '0' is in 2 runs (run-a, run-b); name the run (a "run" field, or --run / ?run=)\n`);
      expect(await counts()).toEqual(before);
      const ok = runCli(['import', 'labels', labels, '--run', 'run-a'], { env });
      expect(ok.stderr).toBe('');
      expect(ok.stdout).toBe('2 labels added, 0 replaced, 0 unchanged (run run-a)\n');
    }, SLOW);

    it('changing stored labels: exit 2 with the count and examples; --replace replaces and says so', async () => {
      const changed = file('changed.jsonl', jsonl(...[0, 1].map((answer) => ({ answer, run: 'run-a', item: 'barn', rater: 'ann', label: 'partial' }))));
      const before = await counts();
      const r = runCli(['import', 'labels', changed], { env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^assay import labels: .*changed\.jsonl: would replace 2 stored labels \(.*changed\.jsonl:1 answer "0" of run "run-a", item "barn", rater "ann": "correct" → "partial"; .*\); nothing written — to replace them, import again with --replace/,
      );
      expect(await counts()).toEqual(before);
      const replaced = runCli(['import', 'labels', changed, '--replace', '--json'], { env });
      expect(replaced.stderr).toBe('');
      expect(replaced.json()).toEqual({ inserted: 0, replaced: 2, unchanged: 0, runs: ['run-a'] });
      expect(await counts()).toEqual(before);
      // Importing the same file again is no replacement at all: no flag needed.
      expect(runCli(['import', 'labels', changed], { env }).stdout).toBe('0 labels added, 0 replaced, 2 unchanged (run run-a)\n');
    }, SLOW);

    it('puzzles: changing a stored puzzle exits 2 until --replace', async () => {
      const puzzle = JSON.parse(readFileSync('rubrics/examples/puzzles/grid-4x4.json', 'utf8')) as Record<string, unknown>;
      expect(runCli(['import', 'puzzles', file('grid-4x4.json', JSON.stringify(puzzle))], { env }).stdout).toBe('1 created, 0 updated, 0 unchanged\n');
      const moved = file('grid-4x4.json', JSON.stringify({ ...puzzle, sizeBucket: 'tiny' }));
      const before = await counts();
      const r = runCli(['import', 'puzzles', moved], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `assay import puzzles: would change 1 stored puzzle (${moved}:1 puzzle 'grid-4x4': sizeBucket '~16' → 'tiny'); nothing written — to change them, import again with --replace (API: ?replace=true)\n`,
      );
      expect(await counts()).toEqual(before);
      expect(runCli(['import', 'puzzles', moved, '--replace'], { env }).stdout).toBe('0 created, 1 updated, 0 unchanged\n');
    }, SLOW);
  });
}
