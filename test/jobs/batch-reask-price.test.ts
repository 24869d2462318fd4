import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadPrices } from '../../src/judges/prices.ts';
import { runBatchGrading } from '../../src/services/grading/batch.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { lastUserText } from '../fake-provider/wire.ts';
import { describeDb } from '../helpers/db.ts';
import { fullVerdicts } from '../judges/harness.ts';
import { JUDGE_FILE, quietEngine, seedRun } from './helpers.ts';

/**
 * `assay run --batch` prices what went through the batch API at the batch discount, and only that: the
 * one re-ask after an invalid batch reply is a regular call, billed at the full price.
 */

const GPT_FILE = fileURLToPath(new URL('./fixtures/fake-gpt.yaml', import.meta.url));
const PROVIDERS = [
  { name: 'anthropic', judgeFile: JUDGE_FILE, model: 'claude-sonnet-5' },
  { name: 'openai', judgeFile: GPT_FILE, model: 'gpt-4.1' },
] as const;

for (const p of PROVIDERS) {
  describeDb(`batch re-ask price (${p.name})`, (ctx) => {
    let fake: FakeProvider;
    const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl });
    beforeAll(async () => {
      // Every batched request answers with no JSON; the re-ask (sent live) answers with verdicts.
      fake = await startFakeProvider({ script: (call) => (lastUserText(call).includes('rejected') ? { kind: 'verdicts', output: fullVerdicts() } : { kind: 'text', text: 'no JSON here at all' }) });
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('the batch reply costs half the table, the live re-ask the full table', async () => {
      const { answerIds } = await seedRun(ctx.database, `${p.name}-reask`, 2, (i) => `reask answer ${i}: a farmyard with ${i} cows.`);
      const res = await runBatchGrading(ctx.database, { run: `${p.name}-reask`, judge: p.judgeFile, keys: keys(), pollIntervalMs: 5, engine: quietEngine });
      expect(res).toMatchObject({ graded: 2, failed: 0 });
      const price = loadPrices().models[p.model]!;
      const full = (r: Record<string, unknown>) =>
        (Number(r.input_tokens) * price.input + Number(r.output_tokens) * price.output + Number(r.cache_read_tokens) * price.cache_read + Number(r.cache_write_tokens) * price.cache_write) / 1e6;
      const rows = (await ctx.database.execute(`select * from usage_ledger where answer_id = any($1::int[]) order by answer_id, id`, [answerIds])).rows;
      expect(rows.map((r) => r.status)).toEqual(['invalid_output', 'ok', 'invalid_output', 'ok']);
      for (const r of rows) {
        expect(full(r)).toBeGreaterThan(0);
        expect([r.status, Number(r.cost_usd)]).toEqual([r.status, Number((r.status === 'ok' ? full(r) : full(r) / 2).toFixed(9))]);
      }
    });
  });
}
