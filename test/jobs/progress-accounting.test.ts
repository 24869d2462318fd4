import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { progressLine } from '../../src/cli/progress-bar.ts';
import { getProgress, getRunProgress } from '../../src/services/grading/progress.ts';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { startWorker } from '../../src/services/grading/worker.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { count, JUDGE_FILE, quietEngine, seedRun, TEST_BOSS, VERDICTS } from './helpers.ts';

/** Progress's cost and counts against what the ledger and the queue really hold. */
const UNPRICED = fileURLToPath(new URL('./fixtures/fake-claude-unpriced.yaml', import.meta.url));

describeDb('progress accounting', (ctx) => {
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

  it('calls of a model with no known price make the cost unknown, never $0', async () => {
    const { answerIds } = await seedRun(ctx.database, 'pa-unpriced', 3);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'pa-unpriced', judge: UNPRICED });
    const w = await startWorker(ctx.database, { concurrency: 2, keys: keys(), queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine });
    await w.done;
    // Three paid calls, none of them priced.
    expect(await count(ctx.database, `select count(*)::int as n from usage_ledger where answer_id = any($1::int[]) and cost_usd is null`, [answerIds])).toBe(3);
    const p = await getProgress(ctx.database, e.gradingRunId);
    expect(p).toMatchObject({ done: 3, calls: 3, unpricedCalls: 3 });
    expect(progressLine(p)).not.toMatch(/\$0\.0000/);
    expect(progressLine(p)).toContain('cost unknown');
  });
});

describeDb('progress counts after the queue archived a failed job', (ctx) => {
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

  // pg-boss's maintenance moves a failed job to pgboss.archive after archiveFailedAfterSeconds (12 h by
  // default); this is its statement, run at once.
  const archiveFailed = (gradingRunId: number) =>
    ctx.database.execute(
      `with moved as (delete from pgboss.job where state = 'failed' and (data->>'gradingRunId')::int = $1 returning *)
       insert into pgboss.archive (id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, start_after, started_on, singleton_key, singleton_on, expire_in, created_on, completed_on, keep_until, dead_letter, policy, output)
       select id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, start_after, started_on, singleton_key, singleton_on, expire_in, created_on, completed_on, keep_until, dead_letter, policy, output from moved
       on conflict do nothing`,
      [gradingRunId],
    );

  it('an answer whose failed job was archived and enqueued again is remaining, then failed once', async () => {
    const poisoned = (call: { body: unknown }) => JSON.stringify(call.body).includes('POISON');
    fake.setScript((call) => (poisoned(call) ? { kind: 'status', status: 500 } : VERDICTS));
    await seedRun(ctx.database, 'pa-archived', 3, (i) => (i === 1 ? 'POISON answer about a barn' : `Answer ${i}: hens and a barn`));
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'pa-archived', judge: JUDGE_FILE });
    const work = async () => (await startWorker(ctx.database, { concurrency: 2, keys: keys(), queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine })).done;
    await work();
    expect(await getProgress(ctx.database, e.gradingRunId)).toMatchObject({ total: 3, done: 2, failed: 1, remaining: 0 });

    await archiveFailed(e.gradingRunId);
    expect(await getProgress(ctx.database, e.gradingRunId)).toMatchObject({ done: 2, failed: 1, remaining: 0 });
    // `assay run` again: the job id is free in pgboss.job, so the answer gets a new job under the same id.
    const again = await enqueueRunGrading(ctx.database, queue, { run: 'pa-archived', judge: JUDGE_FILE });
    expect(again.jobs).toBe(1);
    expect(await getProgress(ctx.database, e.gradingRunId)).toMatchObject({ done: 2, failed: 0, remaining: 1, jobs: { queued: 1 } });

    await work();
    const p = await getProgress(ctx.database, e.gradingRunId);
    expect(p).toMatchObject({ total: 3, done: 2, failed: 1, remaining: 0 });
  });
});

describeDb('progress of a run whose judge file changed between runs', (ctx) => {
  let queue: GradingQueue;
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
  });

  it('naming the judge picks its latest configuration; two different judges still need one named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-judge-'));
    const edited = join(dir, 'fake-claude.yaml');
    // The same judge id with a larger output budget: another configuration (config hash), another judges row.
    writeFileSync(edited, readFileSync(JUDGE_FILE, 'utf8').replace('max_tokens: 1000', 'max_tokens: 1200'));
    await seedRun(ctx.database, 'pa-edited', 2);
    const first = await enqueueRunGrading(ctx.database, queue, { run: 'pa-edited', judge: JUDGE_FILE });
    const second = await enqueueRunGrading(ctx.database, queue, { run: 'pa-edited', judge: edited });
    expect(second.judge.slug).toBe(first.judge.slug);
    expect(second.gradingRunId).not.toBe(first.gradingRunId);
    const p = await getRunProgress(ctx.database, 'pa-edited', 'fake-claude');
    expect(p).toMatchObject({ judge: { id: second.judge.id, slug: 'fake-claude' }, total: 2, remaining: 2 });
    expect((await getRunProgress(ctx.database, 'pa-edited')).judge.id).toBe(second.judge.id);
    // Two judges: which one is meant is still asked.
    await enqueueRunGrading(ctx.database, queue, { run: 'pa-edited', judge: 'lexical' });
    expect((await getRunProgress(ctx.database, 'pa-edited', 'fake-claude')).judge.id).toBe(second.judge.id);
    await expect(getRunProgress(ctx.database, 'pa-edited')).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/several judges/) });
    rmSync(dir, { recursive: true });
  });
});
