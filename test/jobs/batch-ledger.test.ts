import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBatchGrading } from '../../src/services/grading/batch.ts';
import { createGradingSession } from '../../src/services/grading/session.ts';
import { type FakeProvider, type Step, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { fullVerdicts } from '../judges/harness.ts';
import { JUDGE_FILE, quietEngine, seedRun } from './helpers.ts';

/**
 * What `--batch` pays for and what the usage ledger says it paid: every batched request the provider
 * answers is a ledger row, and no request is sent whose verdict the response cache already holds (the
 * grade would come from the cache, and the paid request would be in no ledger row).
 */

const GPT_FILE = fileURLToPath(new URL('./fixtures/fake-gpt.yaml', import.meta.url));
const VERDICTS: Step = { kind: 'verdicts', output: fullVerdicts() };

for (const p of [
  { name: 'anthropic', judgeFile: JUDGE_FILE },
  { name: 'openai', judgeFile: GPT_FILE },
] as const) {
  describeDb(`batch ledger (${p.name})`, (ctx) => {
    let fake: FakeProvider;
    /** Requests the fake answered, batched or live. */
    let answered = 0;
    const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl });
    const run = (name: string) => runBatchGrading(ctx.database, { run: name, judge: p.judgeFile, keys: keys(), pollIntervalMs: 5, engine: quietEngine });
    const ledgerRows = async (runId: number) =>
      Number((await ctx.database.execute(`select count(*)::int as n from usage_ledger l join answers a on a.id = l.answer_id where a.run_id = $1`, [runId])).rows[0]!.n);
    const statuses = async (runId: number) => (await ctx.database.execute(`select g.status from grades g join answers a on a.id = g.answer_id where a.run_id = $1 order by a.id`, [runId])).rows.map((r) => r.status);

    beforeAll(async () => {
      fake = await startFakeProvider({
        script: () => {
          answered++;
          return VERDICTS;
        },
      });
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('answers of the same text: one request is paid, one ledger row, every answer graded', async () => {
      answered = 0;
      const { runId } = await seedRun(ctx.database, `${p.name}-dup`, 4, (i) => (i < 3 ? 'the same answer: a red barn and three hens.' : `another answer ${i}: a pond.`));
      expect(await run(`${p.name}-dup`)).toMatchObject({ graded: 4, failed: 0 });
      expect(await statuses(runId)).toEqual(['ok', 'ok', 'ok', 'ok']);
      expect(await ledgerRows(runId)).toBe(answered);
      expect(answered).toBe(2);
    });

    it('answers of the same text further apart than one batch holds are still one request', async () => {
      answered = 0;
      const name = `${p.name}-dup-far`;
      const { runId } = await seedRun(ctx.database, name, 3, (i) => (i === 1 ? 'far apart: a lone goose.' : 'far apart: the same text twice.'));
      const res = await runBatchGrading(ctx.database, { run: name, judge: p.judgeFile, keys: keys(), pollIntervalMs: 5, engine: quietEngine, maxPerBatch: 2 });
      expect(res).toMatchObject({ created: 1, graded: 3, failed: 0 });
      expect(await statuses(runId)).toEqual(['ok', 'ok', 'ok']);
      expect(answered).toBe(2);
      expect(await ledgerRows(runId)).toBe(2);
    });

    it('a run whose verdicts are all in the cache (the same answers imported again): no batch, no request, graded from the cache', async () => {
      const first = await seedRun(ctx.database, `${p.name}-orig`, 3, (i) => `imported twice ${i}: a farmyard with ${i} cows.`);
      expect(await run(`${p.name}-orig`)).toMatchObject({ created: 1, graded: 3 });
      answered = 0;
      const again = await seedRun(ctx.database, `${p.name}-again`, 3, (i) => `imported twice ${i}: a farmyard with ${i} cows.`);
      const res = await run(`${p.name}-again`);
      expect(res).toMatchObject({ created: 0, graded: 3, failed: 0 });
      expect(answered).toBe(0);
      expect(await statuses(again.runId)).toEqual(['ok', 'ok', 'ok']);
      expect(await ledgerRows(again.runId)).toBe(0);
      expect(await ledgerRows(first.runId)).toBe(3);
    });

    it('a live re-ask that stops the run (quota, key) stops only live calls: the batch results already paid for are still graded', async () => {
      const name = `${p.name}-stopped`;
      const { runId } = await seedRun(ctx.database, name, 4, (i) => `stopped answer ${i}: a farmyard with ${i} hens.`);
      fake.setScript((call) => {
        answered++;
        const body = JSON.stringify(call.body ?? {});
        if (body.includes('stopped answer 0')) return body.includes('rejected') ? { kind: 'status', status: 401, type: 'authentication_error', message: 'invalid x-api-key' } : { kind: 'text', text: 'no JSON here' };
        return VERDICTS;
      });
      try {
        const res = await run(name);
        expect(res).toMatchObject({ created: 1, graded: 3, failed: 1 });
        expect(await statuses(runId)).toEqual(['provider_error', 'ok', 'ok', 'ok']);
        const why = (await ctx.database.execute(`select g.reason from grades g join answers a on a.id = g.answer_id where a.run_id = $1 and g.status = 'provider_error'`, [runId])).rows[0]!.reason;
        expect(String(why)).toMatch(/re-ask through the regular API: .*401/);
      } finally {
        fake.setScript(() => {
          answered++;
          return VERDICTS;
        });
      }
    });

    it('an answer graded live while its batch item failed is not bought again', async () => {
      const name = `${p.name}-graded-meanwhile`;
      const { runId, answerIds } = await seedRun(ctx.database, name, 3, (i) => `meanwhile answer ${i}: a farmyard with ${i} mules.`);
      let batched = true;
      fake.setScript((call) => {
        answered++;
        // In the batch, answer 0 errors; asked live (below), it is answered.
        return batched && JSON.stringify(call.body ?? {}).includes('meanwhile answer 0') ? { kind: 'status', status: 500 } : VERDICTS;
      });
      try {
        const res = await runBatchGrading(ctx.database, {
          run: name,
          judge: p.judgeFile,
          keys: keys(),
          pollIntervalMs: 5,
          engine: quietEngine,
          sleep: async () => {
            if (!batched) return;
            batched = false;
            const live = await createGradingSession(ctx.database, { judge: p.judgeFile, keys: keys(), engine: quietEngine });
            await live.grade({ answer: { id: answerIds[0]! } });
          },
        });
        expect(res).toMatchObject({ created: 1, resubmitted: 0, failed: 0 });
        expect(await statuses(runId)).toEqual(['ok', 'ok', 'ok']);
      } finally {
        fake.setScript(() => {
          answered++;
          return VERDICTS;
        });
      }
    });

    it('a crash after the grades were written but before the batch was marked reconciled: collecting again changes no grade and no ledger row', async () => {
      const name = `${p.name}-recollect`;
      const { runId } = await seedRun(ctx.database, name, 3, (i) => `collected twice ${i}: a farmyard with ${i} sheep.`);
      expect(await run(name)).toMatchObject({ created: 1, graded: 3 });
      const gradesNow = async () =>
        (await ctx.database.execute(`select g.answer_id, g.status, g.cost_usd, g.input_tokens, g.output_tokens, g.meta->>'cached' as cached, g.created_at from grades g join answers a on a.id = g.answer_id where a.run_id = $1 order by a.id`, [runId])).rows;
      const before = await gradesNow();
      expect(before.every((g) => Number(g.cost_usd) > 0 && g.cached === 'false')).toBe(true);
      const ledger = await ledgerRows(runId);
      // The state the crash leaves: results stored, the row still 'ended'.
      await ctx.database.execute(`update provider_batches set state = 'ended' where run_id = $1`, [runId]);
      answered = 0;
      expect(await run(name)).toMatchObject({ created: 0, failed: 0 });
      expect(answered).toBe(0);
      expect(await gradesNow()).toEqual(before);
      expect(await ledgerRows(runId)).toBe(ledger);
    });
  });
}
