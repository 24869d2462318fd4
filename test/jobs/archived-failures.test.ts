import { afterAll, beforeAll, expect, it } from 'vitest';
import { getProgress } from '../../src/services/grading/progress.ts';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { startWorker } from '../../src/services/grading/worker.ts';
import { listJobs, retryFailedJobs } from '../../src/services/jobs.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { gradesPerAnswer, JUDGE_FILE, quietEngine, seedRun, TEST_BOSS, VERDICTS } from './helpers.ts';

/**
 * pg-boss's maintenance moves a failed job to pgboss.archive 12 h after it failed: `assay jobs`, GET
 * /api/jobs and `assay jobs retry` must still see it (before: the run read as clean, "retried 0").
 */
describeDb('failed jobs the queue archived', (ctx) => {
  let fake: FakeProvider;
  let queue: GradingQueue;
  const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url });
  const poisoned = (call: { body: unknown }) => JSON.stringify(call.body).includes('POISON');
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [VERDICTS] });
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
    await fake?.close();
  });

  // pg-boss's archive statement (plans.js archive()), run at once for the run's failed jobs.
  const archiveFailed = (gradingRunId: number) =>
    ctx.database.execute(
      `with moved as (delete from pgboss.job where state = 'failed' and (data->>'gradingRunId')::int = $1 returning *)
       insert into pgboss.archive (id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, start_after, started_on, singleton_key, singleton_on, expire_in, created_on, completed_on, keep_until, dead_letter, policy, output)
       select id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, start_after, started_on, singleton_key, singleton_on, expire_in, created_on, completed_on, keep_until, dead_letter, policy, output from moved
       on conflict do nothing`,
      [gradingRunId],
    );

  async function failOne(name: string): Promise<{ runId: number; answerIds: number[]; gradingRunId: number }> {
    fake.setScript((call) => (poisoned(call) ? { kind: 'status', status: 500 } : VERDICTS));
    const seeded = await seedRun(ctx.database, name, 3, (i) => (i === 1 ? `POISON answer about a barn (${name})` : `${name} answer ${i}: hens and a barn`));
    const e = await enqueueRunGrading(ctx.database, queue, { run: name, judge: JUDGE_FILE });
    await (await startWorker(ctx.database, { concurrency: 2, keys: keys(), queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine })).done;
    await archiveFailed(e.gradingRunId);
    return { ...seeded, gradingRunId: e.gradingRunId };
  }
  const work = async (gradingRunId: number) =>
    (await startWorker(ctx.database, { concurrency: 2, keys: keys(), queue, pollMs: 50, untilDone: [gradingRunId], engine: quietEngine })).done;

  it('are listed as failed with their reason and counted', async () => {
    const { answerIds } = await failOne('arch-list');
    const all = await listJobs(ctx.database, { run: 'arch-list' });
    expect(all.counts).toMatchObject({ failed: 1, completed: 2 });
    const failed = await listJobs(ctx.database, { run: 'arch-list', state: 'failed' });
    expect(failed.jobs.map((j) => [j.answerId, j.state, j.run, j.judge])).toEqual([[answerIds[1], 'failed', 'arch-list', 'fake-claude']]);
    expect(failed.jobs[0]!.error).toMatch(/500/);
  });

  it('an archived failure whose answer is queued again is listed once, in its new state', async () => {
    const { gradingRunId } = await failOne('arch-again');
    fake.setScript([VERDICTS]);
    const again = await enqueueRunGrading(ctx.database, queue, { run: 'arch-again', judge: JUDGE_FILE });
    expect(again.jobs).toBe(1);
    const l = await listJobs(ctx.database, { run: 'arch-again' });
    expect(l.counts).toMatchObject({ failed: 0, created: 1, completed: 2 });
    expect(l.jobs).toHaveLength(3);
    await work(gradingRunId);
    expect((await listJobs(ctx.database, { run: 'arch-again' })).counts).toMatchObject({ failed: 0, completed: 3 });
  });

  it('are retried by run and by id, and then graded', async () => {
    const byRun = await failOne('arch-retry-run');
    fake.setScript([VERDICTS]);
    expect(await retryFailedJobs(ctx.database, queue, { run: 'arch-retry-run' })).toEqual({ retried: 1 });
    await work(byRun.gradingRunId);
    expect(await gradesPerAnswer(ctx.database, byRun.runId)).toEqual([1, 1, 1]);
    expect(await getProgress(ctx.database, byRun.gradingRunId)).toMatchObject({ done: 3, failed: 0, remaining: 0 });
    expect((await listJobs(ctx.database, { run: 'arch-retry-run' })).counts).toMatchObject({ failed: 0, completed: 3 });

    const byId = await failOne('arch-retry-id');
    const id = (await listJobs(ctx.database, { run: 'arch-retry-id', state: 'failed' })).jobs[0]!.id;
    fake.setScript([VERDICTS]);
    expect(await retryFailedJobs(ctx.database, queue, { ids: [id] })).toEqual({ retried: 1 });
    // Retried once: a second retry of the same id finds it queued, not failed.
    await expect(retryFailedJobs(ctx.database, queue, { ids: [id] })).rejects.toMatchObject({ code: 'conflict' });
    await work(byId.gradingRunId);
    expect(await getProgress(ctx.database, byId.gradingRunId)).toMatchObject({ done: 3, failed: 0, remaining: 0 });
  });

  // pg-boss's own maintenance (plans.js archive() then drop()): a failed job was moved to pgboss.archive
  // 12 h after it failed and deleted 7 days later, and with it the failure and its reason: the answer then
  // read as remaining, in a run nothing was left to grade, and `assay jobs --state failed` was empty.
  it('outlive pg-boss maintenance weeks after the failure, reason and count kept', async () => {
    fake.setScript((call) => (poisoned(call) ? { kind: 'status', status: 500 } : VERDICTS));
    const { answerIds } = await seedRun(ctx.database, 'arch-weeks', 3, (i) => (i === 1 ? 'POISON answer about a barn (arch-weeks)' : `arch-weeks answer ${i}: hens and a barn`));
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'arch-weeks', judge: JUDGE_FILE });
    await work(e.gradingRunId);
    const boss = await queue.boss();
    const ofRun = `(data->>'gradingRunId')::int = $1`;
    // Thirty days pass, and maintenance runs; whatever it archived is then eight days old, and it runs again.
    await ctx.database.execute(`update pgboss.job set completed_on = completed_on - interval '30 days', created_on = created_on - interval '30 days' where ${ofRun}`, [e.gradingRunId]);
    await boss.maintain();
    await ctx.database.execute(`update pgboss.archive set archived_on = archived_on - interval '8 days' where ${ofRun}`, [e.gradingRunId]);
    await boss.maintain();
    const failed = await listJobs(ctx.database, { run: 'arch-weeks', state: 'failed' });
    expect(failed.jobs.map((j) => [j.answerId, j.state])).toEqual([[answerIds[1], 'failed']]);
    expect(failed.jobs[0]!.error).toMatch(/500/);
    expect(await getProgress(ctx.database, e.gradingRunId)).toMatchObject({ total: 3, done: 2, failed: 1, remaining: 0 });
    fake.setScript([VERDICTS]);
    expect(await retryFailedJobs(ctx.database, queue, { run: 'arch-weeks' })).toEqual({ retried: 1 });
    await work(e.gradingRunId);
    expect(await getProgress(ctx.database, e.gradingRunId)).toMatchObject({ done: 3, failed: 0, remaining: 0 });
  });

  it('archived before they were kept, are taken back when a queue of before is updated, so deleting the archive loses none', async () => {
    const { answerIds, gradingRunId } = await failOne('arch-back');
    const inArchive = async () => Number((await ctx.database.execute(`select count(*)::int as n from pgboss.archive where state = 'failed' and (data->>'gradingRunId')::int = $1`, [gradingRunId])).rows[0]!.n);
    expect(await inArchive()).toBe(1);
    // The queue as a version of before made it (30 days' retention): the next start updates it.
    await ctx.database.execute(`update pgboss.queue set retention_minutes = 60 * 24 * 30 where name = 'assay-grade'`);
    const other = gradingQueue(ctx.database, TEST_BOSS);
    try {
      const boss = await other.boss();
      expect(await inArchive()).toBe(0);
      await ctx.database.execute(`update pgboss.archive set archived_on = archived_on - interval '8 days'`);
      await boss.maintain();
    } finally {
      await other.stop();
    }
    const failed = await listJobs(ctx.database, { run: 'arch-back', state: 'failed' });
    expect(failed.jobs.map((j) => [j.answerId, j.state])).toEqual([[answerIds[1], 'failed']]);
    expect(failed.jobs[0]!.error).toMatch(/500/);
    expect(await getProgress(ctx.database, gradingRunId)).toMatchObject({ done: 2, failed: 1, remaining: 0 });
  });

  // pg-boss's retry keeps the failure's completed_on, and its maintenance archives a job not failed whose
  // completed_on is over 12 h old: a failure re-queued a day later vanished at the next maintenance.
  it('a failure queued again days later by `assay run` is graded, not archived unrun', async () => {
    fake.setScript((call) => (poisoned(call) ? { kind: 'status', status: 500 } : VERDICTS));
    await seedRun(ctx.database, 'arch-late', 3, (i) => (i === 1 ? 'POISON answer about a barn (arch-late)' : `arch-late answer ${i}: hens and a barn`));
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'arch-late', judge: JUDGE_FILE });
    await work(e.gradingRunId);
    await ctx.database.execute(`update pgboss.job set completed_on = completed_on - interval '3 days' where state = 'failed' and (data->>'gradingRunId')::int = $1`, [e.gradingRunId]);
    fake.setScript([VERDICTS]);
    const again = await enqueueRunGrading(ctx.database, queue, { run: 'arch-late', judge: JUDGE_FILE });
    expect(again.gradingRunId).toBe(e.gradingRunId);
    await (await queue.boss()).maintain();
    await work(e.gradingRunId);
    expect(await getProgress(ctx.database, e.gradingRunId)).toMatchObject({ done: 3, failed: 0, remaining: 0 });
  });

  // pg-boss sets a waiting job's keep_until once, at insert (enqueue + the queue's retention, 30 days),
  // and its maintenance archives a waiting job past it: answers enqueued (`--enqueue-only`) and not worked
  // within the window left the queue unrun, listed nowhere, while their progress still read remaining.
  it('waiting jobs are not dropped unrun however long no worker comes', async () => {
    fake.setScript([VERDICTS]);
    const { runId } = await seedRun(ctx.database, 'arch-wait', 3);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'arch-wait', judge: JUDGE_FILE });
    // Forty days pass with no worker (every time of the waiting jobs forty days back), and maintenance runs.
    await ctx.database.execute(
      `update pgboss.job set created_on = created_on - interval '40 days', start_after = start_after - interval '40 days', keep_until = keep_until - interval '40 days'
        where name = 'assay-grade' and (data->>'gradingRunId')::int = $1`,
      [e.gradingRunId],
    );
    await (await queue.boss()).maintain();
    expect((await listJobs(ctx.database, { run: 'arch-wait' })).counts).toMatchObject({ created: 3 });
    await work(e.gradingRunId);
    expect(await gradesPerAnswer(ctx.database, runId)).toEqual([1, 1, 1]);
  });
});
