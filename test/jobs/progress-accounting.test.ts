import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { progressLine } from '../../src/cli/progress-bar.ts';
import { getProgress } from '../../src/services/grading/progress.ts';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { startWorker } from '../../src/services/grading/worker.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { count, quietEngine, seedRun, TEST_BOSS, VERDICTS } from './helpers.ts';

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
