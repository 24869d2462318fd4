import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../../src/db/client.ts';
import { runCli } from '../../helpers/cli.ts';
import { gradedAmong, MIXED_EXPECTED, seedMixedRun } from './mixed-run.ts';

/** `assay run` on a run holding descriptions and assemblies: only the descriptions are graded, and it says what it skipped. */
describe('assay run on a mixed run (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-mixed-run-'));
  const env = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data') };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('grades the four descriptions, none of the rest, and reports the skipped answers in --json and in text', async () => {
    let seeded = { graded: [] as number[], notGraded: [] as number[] };
    const before = await openDatabase({ dataDir: env.ASSAY_DATA_DIR });
    try {
      await migrate(before);
      seeded = await seedMixedRun(before, 'mixed-cli');
    } finally {
      await before.close();
    }

    const r = runCli(['run', '--run', 'mixed-cli', '--judge', 'lexical', '--concurrency', '2', '--json'], { env });
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ ...MIXED_EXPECTED, done: 4, failed: 0, remaining: 0, calls: 4, enqueued: { jobs: 4, alreadyGraded: 0 } });

    const again = runCli(['run', '--run', 'mixed-cli', '--judge', 'lexical'], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('run mixed-cli, judge lexical: 4 of 4 graded, 0 failed, 0 remaining');
    expect(again.stdout).toContain('skipped 6 answers that no judge grades: 3 of a task scored without a judge (assemble, choice), 1 whose call ended in error, 1 without text, 1 without a rubric');

    // The errored answer asked for by id: bad input, nothing graded.
    const errored = seeded.notGraded.at(-1)!;
    const g = runCli(['grade', '--rubric', 'farmyard-54', '--answer', String(errored), '--judge', 'lexical'], { env });
    expect(g.code).toBe(2);
    expect(g.stdout).toBe('');
    expect(g.stderr.trim()).toBe(`assay grade: answer ${errored}: its call ended in error (status error): its text is not the model's answer, so no judge grades it`);

    const after = await openDatabase({ dataDir: env.ASSAY_DATA_DIR });
    try {
      expect(await gradedAmong(after, [...seeded.graded, ...seeded.notGraded])).toEqual(seeded.graded);
    } finally {
      await after.close();
    }
  }, 300_000);
});
