import { afterAll, beforeAll, expect, it } from 'vitest';
import { GRADE_QUEUE } from '../../src/jobs/boss.ts';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { listJobs } from '../../src/services/jobs.ts';
import { describeDb } from '../helpers/db.ts';
import { JUDGE_FILE, seedRun, TEST_BOSS, until } from './helpers.ts';

/**
 * A job that ran out of retries is listed failed with its reason whatever failed it: pg-boss's expiry
 * (a worker gone past expireInSeconds, its last retry) stores the reason as {"value": {"message"}}, not
 * {"message"} as a worker's fail does; before, `assay jobs` showed such a job failed with no error.
 */
describeDb('the reason of a job pg-boss expired', (ctx) => {
  let queue: GradingQueue;
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
  });

  it('is listed as the failed job error', async () => {
    await seedRun(ctx.database, 'reason-expired', 1);
    await enqueueRunGrading(ctx.database, queue, { run: 'reason-expired', judge: JUDGE_FILE });
    const boss = await queue.boss();
    // A worker fetches the job and dies: on its last attempt, long past its expiry.
    const [job] = await boss.fetch(GRADE_QUEUE);
    expect(job).toBeDefined();
    await ctx.database.execute(`update pgboss.job set started_on = now() - interval '1 day', retry_count = retry_limit where name = $1 and id = $2`, [GRADE_QUEUE, job!.id]);
    // pg-boss's maintenance (every second with TEST_BOSS) expires it.
    await until(async () => (await listJobs(ctx.database, { run: 'reason-expired', state: 'failed' })).jobs.length === 1, 30_000, 'the expired job');
    const [failed] = (await listJobs(ctx.database, { run: 'reason-expired', state: 'failed' })).jobs;
    expect(failed!.error).toBe('job failed by timeout in active state');
  }, 60_000);
});
