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
import { JUDGE_FILE, quietEngine, seedRun, TEST_BOSS, VERDICTS } from './helpers.ts';

/**
 * One run's money, by hand, through the queue with the real Anthropic SDK: every reply carries the usage
 * block {input 1000, output 200, cache read 3000, cache write 500}, which at claude-sonnet-5's table price
 * ($2 in, $10 out, $0.20 cache read, $2.50 cache write per million) is
 * (1000·2 + 200·10 + 3000·0.2 + 500·2.5) / 1e6 = $0.00585. Answer a0 is graded at once; a1's first reply
 * is no JSON (billed) and its re-ask is ok (billed): two calls, $0.0117; a2's first call is an HTTP 500
 * (a call, nothing billed) and its retry ok: two calls, $0.00585. The progress (the CLI summary and
 * GET /runs/{id}/progress), the grades and the export say the same: 5 calls, 4 paid, $0.0234.
 */
const USAGE = { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 3000, cache_creation_input_tokens: 500 };

describeDb('usage totals of a run', (ctx) => {
  let fake: FakeProvider;
  let queue: GradingQueue;
  beforeAll(async () => {
    const seen = new Map<string, number>();
    fake = await startFakeProvider({
      script: (call) => {
        const text = JSON.stringify(call.body.messages[0]);
        const which = text.includes('answer 1:') ? 'a1' : text.includes('answer 2:') ? 'a2' : 'a0';
        const n = (seen.get(which) ?? 0) + 1;
        seen.set(which, n);
        const first: Record<string, Step> = { a1: { kind: 'text', text: 'looks right to me' }, a2: { kind: 'status', status: 500 } };
        return n === 1 && first[which] ? first[which]! : VERDICTS;
      },
      routes: {
        'POST /v1/messages': (call, step, c) => {
          const r = anthropicResponse(step(), call, c.cache);
          if (r.status === 200) (r.body as { usage: unknown }).usage = USAGE;
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

  it('calls, tokens and dollars by hand: the same in the progress, the grades and the export', async () => {
    const { answerIds } = await seedRun(ctx.database, 'usage-totals', 3);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'usage-totals', judge: JUDGE_FILE });
    const w = await startWorker(ctx.database, { concurrency: 1, keys: { anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url }, queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine });
    await w.done;
    await w.stop();
    expect(fake.calls).toHaveLength(5);
    const ledger = (
      await ctx.database.execute(`select answer_id, status, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd from usage_ledger where answer_id = any($1::int[]) order by answer_id, id`, [answerIds])
    ).rows.map((r) => [answerIds.indexOf(Number(r.answer_id)), r.status, Number(r.input_tokens), Number(r.output_tokens), Number(r.cache_read_tokens), Number(r.cache_write_tokens), Number(r.cost_usd)]);
    expect(ledger).toEqual([
      [0, 'ok', 1000, 200, 3000, 500, 0.00585],
      [1, 'invalid_output', 1000, 200, 3000, 500, 0.00585],
      [1, 'ok', 1000, 200, 3000, 500, 0.00585],
      [2, 'retryable_error', 0, 0, 0, 0, 0],
      [2, 'ok', 1000, 200, 3000, 500, 0.00585],
    ]);
    const p = await getProgress(ctx.database, e.gradingRunId);
    expect(p).toMatchObject({ done: 3, failed: 0, calls: 5, inFlightCalls: 0, unpricedCalls: 0, costUsd: 0.0234, tokens: { input: 4000, output: 800, cacheRead: 12000, cacheWrite: 2000 } });
    expect(progressLine(p)).toContain('$0.0234');
    const x = await readRunExport(ctx.database, 'usage-totals');
    const exported = x.grades.map((g) => [g.answer, g.status, g.inputTokens, g.outputTokens, g.cacheReadTokens, g.cacheWriteTokens, g.costUsd, (g.meta as { calls?: number }).calls]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(exported).toEqual([
      ['a0', 'ok', 1000, 200, 3000, 500, 0.00585, 1],
      ['a1', 'ok', 2000, 400, 6000, 1000, 0.0117, 2],
      ['a2', 'ok', 1000, 200, 3000, 500, 0.00585, 2],
    ]);
    expect(Number(x.grades.reduce((s, g) => s + (g.costUsd ?? 0), 0).toFixed(9))).toBe(p.costUsd);
  }, 180_000);
});
