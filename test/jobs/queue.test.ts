import { afterAll, beforeAll, expect, it } from 'vitest';
import { GRADE_QUEUE } from '../../src/jobs/boss.ts';
import { loadJudge } from '../../src/judges/config.ts';
import { enqueueInTransaction } from '../../src/services/grading/enqueue.ts';
import { ensureJudgeRow } from '../../src/services/grading/judge-row.ts';
import { getProgress } from '../../src/services/grading/progress.ts';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { cancelRunGrading, enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { startWorker } from '../../src/services/grading/worker.ts';
import { listJobs, retryFailedJobs } from '../../src/services/jobs.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { count, gradesPerAnswer, JUDGE_FILE, quietEngine, seedRun, TEST_BOSS, VERDICTS } from './helpers.ts';

/** The durable queue in one process: idempotent enqueue, one grade per answer, progress, cancel, dead letters. */
describeDb('grading queue', (ctx) => {
  let fake: FakeProvider;
  let queue: GradingQueue;
  const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url });
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [VERDICTS] });
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
    await fake?.close();
  });

  it('grades every answer once; a second enqueue makes no job and no call', async () => {
    fake.setScript([VERDICTS]);
    const { runId, answerIds } = await seedRun(ctx.database, 'q-basic', 24);
    const before = fake.calls.length;
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'q-basic', judge: JUDGE_FILE });
    expect(e).toMatchObject({ total: 24, alreadyGraded: 0, jobs: 24 });
    const again = await enqueueRunGrading(ctx.database, queue, { run: 'q-basic', judge: JUDGE_FILE });
    expect(again.jobs).toBe(24);
    expect(await count(ctx.database, `select count(*)::int as n from pgboss.job where name = $1 and (data->>'gradingRunId')::int = $2`, [GRADE_QUEUE, e.gradingRunId])).toBe(24);

    const w = await startWorker(ctx.database, { concurrency: 8, keys: keys(), queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine });
    await w.done;
    expect(w.stats).toMatchObject({ graded: 24, failed: 0, inFlight: 0 });
    expect(fake.calls.length - before).toBe(24);
    expect(await gradesPerAnswer(ctx.database, runId)).toEqual(answerIds.map(() => 1));
    expect(await count(ctx.database, `select count(*)::int as n from usage_ledger where answer_id = any($1::int[])`, [answerIds])).toBe(24);

    const p = await getProgress(ctx.database, e.gradingRunId);
    expect(p).toMatchObject({ total: 24, done: 24, failed: 0, remaining: 0, etaSeconds: 0, calls: 24, jobs: { queued: 0, retrying: 0, active: 0 } });
    expect(p.tokens.input + p.tokens.cacheRead + p.tokens.cacheWrite).toBeGreaterThan(0);
    expect(p.costUsd).toBeGreaterThan(0);

    const third = await enqueueRunGrading(ctx.database, queue, { run: 'q-basic', judge: JUDGE_FILE });
    expect(third).toMatchObject({ total: 24, alreadyGraded: 24, jobs: 0 });
    expect(fake.calls.length - before).toBe(24);
  });

  it('a rolled-back transaction leaves no job and no grading run', async () => {
    await seedRun(ctx.database, 'q-rollback', 5);
    const judge = loadJudge(JUDGE_FILE);
    const judgeId = await ensureJudgeRow(ctx.database, judge);
    const runRow = await ctx.database.execute(`select id from runs where name = 'q-rollback'`);
    const target = { runId: Number(runRow.rows[0].id), judgeId, judgeRef: JUDGE_FILE, configHash: judge.configHash };
    const boss = await queue.boss();
    const jobsBefore = await count(ctx.database, `select count(*)::int as n from pgboss.job where name = $1`, [GRADE_QUEUE]);
    await expect(
      ctx.database.db.transaction(async (tx) => {
        const r = await enqueueInTransaction(tx, boss, target);
        expect(r.jobs).toBe(5);
        throw new Error('caller fails after enqueueing');
      }),
    ).rejects.toThrow('caller fails');
    expect(await count(ctx.database, `select count(*)::int as n from pgboss.job where name = $1`, [GRADE_QUEUE])).toBe(jobsBefore);
    expect(await count(ctx.database, `select count(*)::int as n from grading_runs where run_id = $1`, [target.runId])).toBe(0);
  });

  it('30% scripted 429/500/529 replies: every answer graded once, ledger rows unique', async () => {
    // A fixed pattern of failures (3 in 10 calls), so the test is deterministic.
    const failures = [{ kind: 'status' as const, status: 429, headers: { 'retry-after-ms': '5' } }, { kind: 'status' as const, status: 500 }, { kind: 'status' as const, status: 529 }];
    fake.setScript((call) => ([1, 4, 7].includes(call.index % 10) ? failures[call.index % 3]! : VERDICTS));
    const { runId, answerIds } = await seedRun(ctx.database, 'q-flaky', 60);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'q-flaky', judge: JUDGE_FILE });
    const w = await startWorker(ctx.database, { concurrency: 6, keys: keys(), queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine });
    await w.done;
    expect(await gradesPerAnswer(ctx.database, runId)).toEqual(answerIds.map(() => 1));
    expect(await count(ctx.database, `select count(*)::int as n from grades g where g.answer_id = any($1::int[]) and g.status = 'ok'`, [answerIds])).toBe(60);
    const ledger = await ctx.database.execute(`select count(*)::int as n, count(distinct call_key)::int as d from usage_ledger where answer_id = any($1::int[])`, [answerIds]);
    expect(ledger.rows[0].n).toBe(ledger.rows[0].d);
    expect(Number(ledger.rows[0].n)).toBeGreaterThan(60);
    const throttled = await count(ctx.database, `select throttled as n from rate_limits where key = 'anthropic:claude-sonnet-5'`);
    expect(throttled).toBeGreaterThan(0);
  });

  it('dead-lettered jobs are listed with their error and re-run by retry', async () => {
    // Every call for answer text containing POISON fails with a 500 until the script changes.
    const poisoned = (call: { body: any }) => JSON.stringify(call.body).includes('POISON');
    fake.setScript((call) => (poisoned(call) ? { kind: 'status', status: 500 } : VERDICTS));
    const { runId, answerIds } = await seedRun(ctx.database, 'q-dead', 4, (i) => (i === 2 ? 'POISON answer about a barn' : `Answer ${i}: hens and a barn`));
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'q-dead', judge: JUDGE_FILE });
    const w = await startWorker(ctx.database, { concurrency: 4, keys: keys(), queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine });
    await w.done;
    const listed = await listJobs(ctx.database, { run: 'q-dead', state: 'failed' });
    expect(listed.jobs.map((j) => j.answerId)).toEqual([answerIds[2]]);
    expect(listed.jobs[0]!.error).toMatch(/500/);
    expect(listed.counts).toMatchObject({ failed: 1, completed: 3 });
    const p = await getProgress(ctx.database, e.gradingRunId);
    expect(p).toMatchObject({ total: 4, done: 3, failed: 1, remaining: 0 });

    // Named ids are all or nothing: a typo or a job that is not failed refuses the request, nothing moves.
    const failedId = listed.jobs[0]!.id;
    const completedId = (await listJobs(ctx.database, { run: 'q-dead', state: 'completed' })).jobs[0]!.id;
    const unknownId = '00000000-0000-4000-8000-000000000000';
    await expect(retryFailedJobs(ctx.database, queue, { ids: [failedId, unknownId] })).rejects.toMatchObject({ code: 'not_found', message: `no grading job ${unknownId} (nothing retried)` });
    await expect(retryFailedJobs(ctx.database, queue, { ids: [failedId, completedId] })).rejects.toMatchObject({ code: 'conflict', message: `only failed jobs can be retried: ${completedId} is completed (nothing retried)` });
    await expect(retryFailedJobs(ctx.database, queue, { run: 'no-such-run' })).rejects.toMatchObject({ code: 'not_found' });
    expect((await listJobs(ctx.database, { run: 'q-dead' })).counts).toMatchObject({ failed: 1, completed: 3 });

    fake.setScript([VERDICTS]);
    expect(await retryFailedJobs(ctx.database, queue, { ids: [failedId, failedId] })).toEqual({ retried: 1 });
    const w2 = await startWorker(ctx.database, { concurrency: 4, keys: keys(), queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine });
    await w2.done;
    expect(await gradesPerAnswer(ctx.database, runId)).toEqual([1, 1, 1, 1]);
    expect(await getProgress(ctx.database, e.gradingRunId)).toMatchObject({ done: 4, failed: 0, remaining: 0 });
  });

  it('cancel leaves waiting jobs cancelled; enqueueing again resumes them', async () => {
    fake.setScript([VERDICTS]);
    const { runId } = await seedRun(ctx.database, 'q-cancel', 6);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'q-cancel', judge: JUDGE_FILE });
    expect(await cancelRunGrading(ctx.database, queue, { run: 'q-cancel' })).toEqual({ cancelled: 6 });
    expect((await listJobs(ctx.database, { run: 'q-cancel' })).counts).toMatchObject({ cancelled: 6, created: 0 });
    const again = await enqueueRunGrading(ctx.database, queue, { run: 'q-cancel', judge: JUDGE_FILE });
    expect(again).toMatchObject({ jobs: 6, resumed: 6 });
    const w = await startWorker(ctx.database, { concurrency: 3, keys: keys(), queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine });
    await w.done;
    expect(await gradesPerAnswer(ctx.database, runId)).toEqual([1, 1, 1, 1, 1, 1]);
  });
});
