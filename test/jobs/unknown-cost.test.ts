import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { progressLine } from '../../src/cli/progress-bar.ts';
import { readRunExport } from '../../src/services/export/read-run.ts';
import { getProgress } from '../../src/services/grading/progress.ts';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { startWorker } from '../../src/services/grading/worker.ts';
import type { Step } from '../fake-provider/server.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { anthropicResponse } from '../fake-provider/wire.ts';
import { describeDb } from '../helpers/db.ts';
import { quietEngine, seedRun, TEST_BOSS, VERDICTS } from './helpers.ts';

/**
 * Calls whose cost nobody knows, through the queue with the real Anthropic SDK (docs/data-safety.md, "Calls
 * of unknown cost"). Every usage block the fake sends is {input 1000, output 200, cache read 3000, cache write
 * 500}: $0.00585 at claude-sonnet-5's price. a0's first call is sent and never answered (the fake holds the
 * reply, the judge's 2 s timeout ends it): the provider most likely billed it, so it is a call of unknown
 * cost, not a $0 call; its retry is ok and priced. a1's reply is ok but carries no usage block: unknown too.
 * a2 is plain. So: 4 calls, 2 of unknown cost, $0.0117 known, which is a lower bound and said to be one.
 */
const JUDGE = fileURLToPath(new URL('./fixtures/fake-claude-quick-timeout.yaml', import.meta.url));
const USAGE = { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 3000, cache_creation_input_tokens: 500 };

describeDb('calls of unknown cost', (ctx) => {
  let fake: FakeProvider;
  let queue: GradingQueue;
  beforeAll(async () => {
    const seen = new Map<string, number>();
    fake = await startFakeProvider({
      script: (call) => {
        const text = JSON.stringify(call.body.messages[0]);
        const which = text.includes('answer 0:') ? 'a0' : text.includes('answer 1:') ? 'a1' : 'a2';
        const n = (seen.get(which) ?? 0) + 1;
        seen.set(which, n);
        return which === 'a0' && n === 1 ? ({ kind: 'hang' } as Step) : VERDICTS;
      },
      routes: {
        'POST /v1/messages': (call, step, c) => {
          const r = anthropicResponse(step(), call, c.cache);
          const body = r.body as { usage?: unknown } | undefined;
          if (r.status === 200 && body) {
            if (JSON.stringify(call.body.messages[0]).includes('answer 1:')) delete body.usage;
            else body.usage = USAGE;
          }
          return r;
        },
      },
    });
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
    await fake?.close();
  });

  it('a timed-out call and a reply without usage are calls of unknown cost: never $0, and every total says so', async () => {
    const { answerIds } = await seedRun(ctx.database, 'unknown-cost', 3);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'unknown-cost', judge: JUDGE });
    const w = await startWorker(ctx.database, { concurrency: 1, keys: { anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url }, queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine });
    await w.done;
    await w.stop();
    expect(fake.calls).toHaveLength(4);
    const ledger = (await ctx.database.execute(`select answer_id, status, cost_usd from usage_ledger where answer_id = any($1::int[]) order by answer_id, id`, [answerIds])).rows.map((r) => [
      answerIds.indexOf(Number(r.answer_id)),
      r.status,
      r.cost_usd === null ? null : Number(r.cost_usd),
    ]);
    expect(ledger).toEqual([
      [0, 'retryable_error:timeout', null],
      [0, 'ok', 0.00585],
      [1, 'ok:no_usage', null],
      [2, 'ok', 0.00585],
    ]);
    const p = await getProgress(ctx.database, e.gradingRunId);
    expect(p).toMatchObject({ done: 3, calls: 4, unknownCostCalls: 2, unpricedCalls: 0, costUsd: 0.0117, tokens: { input: 2000, output: 400, cacheRead: 6000, cacheWrite: 1000 } });
    const line = progressLine(p);
    expect(line).toContain('at least $0.0117');
    expect(line).toContain('2 calls of unknown cost');
    const x = await readRunExport(ctx.database, 'unknown-cost');
    const grades = x.grades
      .map((g) => [g.answer, g.status, g.costUsd, (g.meta as { calls?: number }).calls, (g.meta as { unknownCostCalls?: number }).unknownCostCalls ?? 0])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(grades).toEqual([
      ['a0', 'ok', null, 2, 1],
      ['a1', 'ok', null, 1, 1],
      ['a2', 'ok', 0.00585, 1, 0],
    ]);
  }, 180_000);
});
