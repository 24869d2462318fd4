import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { GRADE_QUEUE } from '../../src/jobs/boss.ts';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { cancelRunGrading, enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { runCli } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { JUDGE_FILE, seedRun, TEST_BOSS } from './helpers.ts';

/**
 * cancelRunGrading reports the jobs it moved to cancelled, and only waiting ones: a job a worker takes
 * while the cancel runs is in flight and finishes (it is neither cancelled nor counted). Before, the jobs
 * were selected first and pg-boss's cancel (which cancels active jobs too) came after, so a job taken in
 * between was cancelled under its worker and counted as a waiting job stopped; the grading run was marked
 * cancelled in a statement of its own.
 */
describeDb('cancel: the count is of jobs cancelled', (ctx) => {
  let queue: GradingQueue;
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
  });

  const states = async (gradingRunId: number) =>
    Object.fromEntries(
      (await ctx.database.execute(`select state::text as state, count(*)::int as n from pgboss.job where name = $1 and (data->>'gradingRunId')::int = $2 group by state`, [GRADE_QUEUE, gradingRunId])).rows.map((r) => [r.state, Number(r.n)]),
    );
  const status = async (gradingRunId: number) => String((await ctx.database.execute(`select status from grading_runs where id = $1`, [gradingRunId])).rows[0]!.status);

  it('a job a worker takes just as the cancel runs stays active and is not counted', async () => {
    await seedRun(ctx.database, 'cc-race', 4);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'cc-race', judge: JUDGE_FILE });
    const boss = await queue.boss();
    // A worker takes a job at the moment pg-boss is asked to cancel: the window the old code had between
    // choosing the jobs and cancelling them. (The cancel is now one statement of its own: no such window.)
    let taken: string | undefined;
    const racing = new Proxy(boss, {
      get(target, prop, receiver) {
        if (prop !== 'cancel') return Reflect.get(target, prop, receiver);
        return async (...args: unknown[]) => {
          const [job] = (await target.fetch(GRADE_QUEUE)) ?? [];
          taken = job?.id;
          return (target.cancel as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
    const q: GradingQueue = { ...queue, boss: async () => racing };
    const r = await cancelRunGrading(ctx.database, q, { run: 'cc-race' });
    const s = await states(e.gradingRunId);
    expect(r.cancelled).toBe(s.cancelled ?? 0);
    if (taken) {
      const t = await ctx.database.execute(`select state::text as state from pgboss.job where name = $1 and id = $2`, [GRADE_QUEUE, taken]);
      expect(t.rows[0]!.state).toBe('active');
    }
    expect((s.cancelled ?? 0) + (s.active ?? 0)).toBe(4);
    expect(await status(e.gradingRunId)).toBe('cancelled');
  });

  it('a run whose jobs are all taken or done: nothing cancelled, reported 0, the grading run left as it was', async () => {
    await seedRun(ctx.database, 'cc-taken', 2);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'cc-taken', judge: JUDGE_FILE });
    const boss = await queue.boss();
    const jobs = (await boss.fetch(GRADE_QUEUE, { batchSize: 10 })) ?? [];
    expect(jobs).toHaveLength(2);
    expect(await cancelRunGrading(ctx.database, queue, { run: 'cc-taken' })).toEqual({ cancelled: 0 });
    expect(await states(e.gradingRunId)).toEqual({ active: 2 });
    expect(await status(e.gradingRunId)).toBe('active');
  });

  it('waiting jobs: each one counted once, all cancelled', async () => {
    await seedRun(ctx.database, 'cc-wait', 3);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'cc-wait', judge: JUDGE_FILE });
    expect(await cancelRunGrading(ctx.database, queue, { run: 'cc-wait' })).toEqual({ cancelled: 3 });
    expect(await states(e.gradingRunId)).toEqual({ cancelled: 3 });
    expect(await status(e.gradingRunId)).toBe('cancelled');
    expect(await cancelRunGrading(ctx.database, queue, { run: 'cc-wait' })).toEqual({ cancelled: 0 });
  });
});

describe('assay jobs cancel prints the count of jobs cancelled', () => {
  it('3 waiting jobs, then none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-cancel-count-'));
    try {
      const database = await openDatabase({ dataDir: dir });
      await migrate(database);
      await seedRun(database, 'cc-cli', 3);
      const queue = gradingQueue(database, TEST_BOSS);
      await enqueueRunGrading(database, queue, { run: 'cc-cli', judge: JUDGE_FILE });
      await queue.stop();
      await database.close();
      const env = { ASSAY_DATA_DIR: dir, DATABASE_URL: '' };
      const first = runCli(['jobs', 'cancel', '--run', 'cc-cli', '--json'], { env });
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({ cancelled: 3 });
      const again = runCli(['jobs', 'cancel', '--run', 'cc-cli'], { env });
      expect(again.code).toBe(0);
      expect(again.stdout.trim()).toBe('0 waiting jobs cancelled');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
