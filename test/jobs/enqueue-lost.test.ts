import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { getProgress } from '../../src/services/grading/progress.ts';
import { cancelRunGrading, enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { startWorker } from '../../src/services/grading/worker.ts';
import { listJobs } from '../../src/services/jobs.ts';
import { describeDb } from '../helpers/db.ts';
import { JUDGE_FILE, seedRun, TEST_BOSS } from './helpers.ts';

/**
 * pg-boss inserts jobs with ON CONFLICT DO NOTHING, joined to its queue row: a queue that takes none of
 * them (its row gone) used to leave a committed grading run, "N jobs" and exit 0 with nothing queued.
 */
describeDb('an enqueue the queue does not take', (ctx) => {
  let queue: GradingQueue;
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
  });

  it('is refused and writes nothing', async () => {
    await seedRun(ctx.database, 'eq-lost', 3);
    await queue.boss();
    // The grade queue's row deleted under a started queue (no job of it exists yet in this database).
    await ctx.database.execute(`delete from pgboss.queue where name = 'assay-grade'`);
    await expect(enqueueRunGrading(ctx.database, queue, { run: 'eq-lost', judge: JUDGE_FILE })).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/took 0 of 3 jobs/) });
    expect(Number((await ctx.database.execute(`select count(*)::int as n from grading_runs`)).rows[0].n)).toBe(0);
    expect(Number((await ctx.database.execute(`select count(*)::int as n from pgboss.job`)).rows[0].n)).toBe(0);
  }, 120_000);
});

describeDb('a completed job whose grade is gone', (ctx) => {
  let queue: GradingQueue;
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
  });

  it('is replaced by a new job on the next enqueue, and graded', async () => {
    const { answerIds } = await seedRun(ctx.database, 'eq-replaced', 2);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'eq-replaced', judge: 'lexical' });
    await (await startWorker(ctx.database, { concurrency: 2, queue, pollMs: 50, untilDone: [e.gradingRunId] })).done;
    expect(await getProgress(ctx.database, e.gradingRunId)).toMatchObject({ done: 2, remaining: 0 });
    await ctx.database.execute(`delete from grades where answer_id = $1`, [answerIds[0]]);
    const again = await enqueueRunGrading(ctx.database, queue, { run: 'eq-replaced', judge: 'lexical' });
    expect(again.jobs).toBe(1);
    expect((await listJobs(ctx.database, { run: 'eq-replaced' })).counts).toMatchObject({ created: 1, completed: 1 });
    await (await startWorker(ctx.database, { concurrency: 2, queue, pollMs: 50, untilDone: [e.gradingRunId] })).done;
    expect(await getProgress(ctx.database, e.gradingRunId)).toMatchObject({ done: 2, remaining: 0 });
  }, 120_000);
});

/**
 * pg-boss archives a waiting job (created or retry) once its keep-until (enqueue time + the queue's 30-day
 * retention) has passed. A job cancelled and resumed, or failed and retried, later than that was archived
 * by the next maintenance before any worker took it: `assay run` said resumed, then found nothing to do.
 */
describeDb('a job revived after its retention', (ctx) => {
  let queue: GradingQueue;
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
  });

  it('stays queued', async () => {
    await seedRun(ctx.database, 'eq-old', 2);
    await enqueueRunGrading(ctx.database, queue, { run: 'eq-old', judge: 'lexical' });
    expect(await cancelRunGrading(ctx.database, queue, { run: 'eq-old' })).toEqual({ cancelled: 2 });
    await ctx.database.execute(`update pgboss.job set keep_until = now() - interval '1 day' where name = 'assay-grade'`);
    const again = await enqueueRunGrading(ctx.database, queue, { run: 'eq-old', judge: 'lexical' });
    expect(again.resumed).toBe(2);
    // pg-boss's maintenance runs every second with TEST_BOSS (its archive among it).
    await new Promise((r) => setTimeout(r, 3500));
    expect((await listJobs(ctx.database, { run: 'eq-old' })).counts).toMatchObject({ created: 2 });
  }, 120_000);
});
