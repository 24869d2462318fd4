import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBatchGrading } from '../../src/services/grading/batch.ts';
import { type FakeProvider, type Step, startFakeProvider } from '../fake-provider/server.ts';
import type { RecordedCall } from '../fake-provider/wire.ts';
import { describeDb } from '../helpers/db.ts';
import { JUDGE_FILE, quietEngine, seedRun, VERDICTS } from './helpers.ts';

/**
 * A batch line the provider answered with an error (errored, expired, canceled: not billed) is no call
 * assay made and paid for: after its one resubmission it is graded provider_error with no ledger row and
 * no call counted. Before, grading the failure "called" the batch judge, whose throw the engine recorded as
 * a fatal_error ledger row of a provider call (0 tokens, $0) that was never sent, and the grade said calls: 1.
 * The run's summary (calls, tokens, cost) is the usage ledger's, the same numbers as the queue path's.
 */

const GPT_FILE = fileURLToPath(new URL('./fixtures/fake-gpt.yaml', import.meta.url));
const PROVIDERS = [
  { name: 'anthropic', judgeFile: JUDGE_FILE },
  { name: 'openai', judgeFile: GPT_FILE },
] as const;
const bodyText = (call: RecordedCall): string => JSON.stringify(call.body ?? {});

for (const p of PROVIDERS) {
  describeDb(`batch: failed lines in the ledger (${p.name})`, (ctx) => {
    let fake: FakeProvider;
    let answered = 0;
    const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl });

    beforeAll(async () => {
      fake = await startFakeProvider({
        script: (call): Step => {
          // Answer 1 errors in both attempts; the others are answered (and billed).
          if (bodyText(call).includes('failing line 1:')) return { kind: 'status', status: 529, type: 'overloaded_error' };
          answered++;
          return VERDICTS;
        },
      });
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('an item that errored twice: provider_error, no ledger row, no call; the summary counts the paid lines only', async () => {
      const name = `${p.name}-failing`;
      const { runId, answerIds } = await seedRun(ctx.database, name, 3, (i) => `failing line ${i}: a farmyard with ${i} ducks.`);
      const res = await runBatchGrading(ctx.database, { run: name, judge: p.judgeFile, keys: keys(), pollIntervalMs: 5, engine: quietEngine });
      expect(res).toMatchObject({ graded: 2, failed: 1, resubmitted: 1 });
      expect(answered).toBe(2);
      const grades = (await ctx.database.execute(`select answer_id, status, meta->>'calls' as calls, cost_usd from grades g where answer_id = any($1::int[]) order by answer_id`, [answerIds])).rows;
      expect(grades.map((g) => [g.status, Number(g.calls)])).toEqual([['ok', 1], ['provider_error', 0], ['ok', 1]]);
      expect(Number(grades[1]!.cost_usd)).toBe(0);
      const ledger = (await ctx.database.execute(`select answer_id, status, cost_usd, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens from usage_ledger where answer_id = any($1::int[]) order by answer_id`, [answerIds])).rows;
      expect(ledger.map((l) => [l.answer_id, l.status])).toEqual([[answerIds[0], 'ok'], [answerIds[2], 'ok']]);
      const sum = (f: string) => ledger.reduce((s, l) => s + Number(l[f]), 0);
      expect(sum('input_tokens')).toBeGreaterThan(0);
      expect(sum('cost_usd')).toBeGreaterThan(0);
      // The summary is the ledger's: 2 paid lines, their tokens and their (batch-priced) cost.
      expect(res).toMatchObject({
        calls: 2,
        tokens: { input: sum('input_tokens'), output: sum('output_tokens'), cacheRead: sum('cache_read_tokens'), cacheWrite: sum('cache_write_tokens') },
        costUsd: Number(sum('cost_usd').toFixed(6)),
        unpricedCalls: 0,
      });
      // Only this run's answers: the run's figures are its own.
      const all = Number((await ctx.database.execute(`select count(*)::int as n from usage_ledger l join answers a on a.id = l.answer_id where a.run_id = $1`, [runId])).rows[0]!.n);
      expect(all).toBe(2);
    });
  });
}
