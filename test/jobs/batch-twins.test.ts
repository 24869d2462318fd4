import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBatchGrading } from '../../src/services/grading/batch.ts';
import { createGradingSession } from '../../src/services/grading/session.ts';
import { type FakeProvider, type Step, startFakeProvider } from '../fake-provider/server.ts';
import type { RecordedCall } from '../fake-provider/wire.ts';
import { describeDb } from '../helpers/db.ts';
import { JUDGE_FILE, quietEngine, seedRun, VERDICTS } from './helpers.ts';

/**
 * Every request the provider bills in a `--batch` run is exactly one usage-ledger row: a result shared by
 * answers of the same request (twins: one batch line) that assay cannot use as a verdict is counted once,
 * not once per twin; a result assay pays for and then throws away (its answer changed, was graded
 * meanwhile, or was deleted while the batch ran) is counted too.
 */

const GPT_FILE = fileURLToPath(new URL('./fixtures/fake-gpt.yaml', import.meta.url));
const PROVIDERS = [
  { name: 'anthropic', judgeFile: JUDGE_FILE },
  { name: 'openai', judgeFile: GPT_FILE },
] as const;
const bodyText = (call: RecordedCall): string => JSON.stringify(call.body ?? {});

for (const p of PROVIDERS) {
  describeDb(`batch twins and discarded results in the ledger (${p.name})`, (ctx) => {
    let fake: FakeProvider;
    let answered = 0;
    let script: (call: RecordedCall) => Step = () => VERDICTS;
    const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl });
    const run = (name: string, extra: Partial<Parameters<typeof runBatchGrading>[1]> = {}) =>
      runBatchGrading(ctx.database, { run: name, judge: p.judgeFile, keys: keys(), pollIntervalMs: 5, engine: quietEngine, ...extra });
    const ledger = async () => (await ctx.database.execute(`select count(*)::int as n, coalesce(sum(cost_usd), 0)::float8 as cost, count(*) filter (where status = 'pending')::int as pending from usage_ledger`)).rows[0]!;
    const statuses = async (runId: number) => (await ctx.database.execute(`select g.status from grades g join answers a on a.id = g.answer_id where a.run_id = $1 order by a.id`, [runId])).rows.map((r) => r.status);

    beforeAll(async () => {
      fake = await startFakeProvider({
        script: (call) => {
          answered++;
          return script(call);
        },
      });
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('twins whose one batched reply is cut off: one request, one ledger row, each twin truncated', async () => {
      const name = `${p.name}-twins-cut`;
      const { runId } = await seedRun(ctx.database, name, 4, (i) => (i < 3 ? 'twin answer: a red barn and three hens.' : 'single answer: a pond.'));
      script = (call) => (bodyText(call).includes('twin answer') ? { kind: 'truncated', text: '{"items": [' } : VERDICTS);
      answered = 0;
      const before = await ledger();
      expect(await run(name)).toMatchObject({ created: 1, graded: 4, failed: 0 });
      expect(await statuses(runId)).toEqual(['truncated', 'truncated', 'truncated', 'ok']);
      expect(answered).toBe(2);
      const after = await ledger();
      expect(after.n - before.n).toBe(2);
      // The grades' costs add up to the ledger's: the twins after the first are graded at no cost.
      const graded = Number((await ctx.database.execute(`select sum(g.cost_usd)::float8 as c from grades g join answers a on a.id = g.answer_id where a.run_id = $1`, [runId])).rows[0]!.c);
      expect(graded).toBeGreaterThan(0);
      expect(graded).toBeCloseTo(after.cost - before.cost, 9);
    });

    it('twins whose batched reply is invalid and whose live re-asks are invalid too: the batched reply is one row, each re-ask its own', async () => {
      const name = `${p.name}-twins-invalid`;
      const { runId } = await seedRun(ctx.database, name, 3, () => 'invalid twin: a red barn and two geese.');
      script = () => ({ kind: 'text', text: 'no JSON here' });
      answered = 0;
      const before = await ledger();
      expect(await run(name)).toMatchObject({ created: 1, graded: 3, failed: 0 });
      expect(await statuses(runId)).toEqual(['parse_failure', 'parse_failure', 'parse_failure']);
      // One batched request, then one live re-ask per answer.
      expect(answered).toBe(4);
      expect((await ledger()).n - before.n).toBe(4);
      script = () => VERDICTS;
    });

    it('a result thrown away because its answer changed while the batch ran is still in the ledger', async () => {
      const name = `${p.name}-discard-changed`;
      const { runId, answerIds } = await seedRun(ctx.database, name, 3, (i) => `changing answer ${i}: a farmyard with ${i} goats.`);
      script = () => VERDICTS;
      answered = 0;
      const before = await ledger();
      let changed = false;
      const res = await run(name, {
        sleep: async () => {
          if (changed) return;
          changed = true;
          await ctx.database.execute(`update answers set text = 'changed answer: a farmyard with nine goats.' where id = $1`, [answerIds[0]]);
        },
      });
      expect(res).toMatchObject({ created: 2, graded: 3, failed: 0 });
      expect(await statuses(runId)).toEqual(['ok', 'ok', 'ok']);
      expect(answered).toBe(4);
      const after = await ledger();
      expect(after.n - before.n).toBe(4);
      expect(after.pending).toBe(0);
    });

    it('a result thrown away because its answer was graded live meanwhile is still in the ledger', async () => {
      const name = `${p.name}-discard-graded`;
      const { answerIds } = await seedRun(ctx.database, name, 3, (i) => `meanwhile answer ${i}: a farmyard with ${i} ducks.`);
      script = () => VERDICTS;
      answered = 0;
      const before = await ledger();
      let graded = false;
      await run(name, {
        sleep: async () => {
          if (graded) return;
          graded = true;
          const live = await createGradingSession(ctx.database, { judge: p.judgeFile, keys: keys(), engine: quietEngine });
          await live.grade({ answer: { id: answerIds[0]! } });
        },
      });
      // 3 batched + 1 live.
      expect(answered).toBe(4);
      expect((await ledger()).n - before.n).toBe(4);
    });

    it('a result for an answer deleted while the batch ran is still in the ledger (with no answer)', async () => {
      const name = `${p.name}-discard-deleted`;
      const { runId, answerIds } = await seedRun(ctx.database, name, 3, (i) => `deleted answer ${i}: a farmyard with ${i} cats.`);
      script = () => VERDICTS;
      answered = 0;
      const before = await ledger();
      let deleted = false;
      const res = await run(name, {
        sleep: async () => {
          if (deleted) return;
          deleted = true;
          await ctx.database.execute(`delete from answers where id = $1`, [answerIds[0]]);
        },
      });
      expect(res).toMatchObject({ created: 1, graded: 2, failed: 0 });
      expect(await statuses(runId)).toEqual(['ok', 'ok']);
      expect(answered).toBe(3);
      expect((await ledger()).n - before.n).toBe(3);
    });

    it('collecting the same batch again (a crash before it was marked reconciled) adds no ledger row', async () => {
      const name = `${p.name}-twins-recollect`;
      const { runId } = await seedRun(ctx.database, name, 3, (i) => (i < 2 ? 'recollect twin: a barn.' : 'recollect single: a pond.'));
      script = (call) => (bodyText(call).includes('recollect twin') ? { kind: 'truncated', text: '{"items": [' } : VERDICTS);
      await run(name);
      const before = await ledger();
      await ctx.database.execute(`update provider_batches set state = 'ended' where run_id = $1`, [runId]);
      answered = 0;
      expect(await run(name)).toMatchObject({ created: 0, failed: 0 });
      expect(answered).toBe(0);
      expect(await ledger()).toEqual(before);
      script = () => VERDICTS;
    });
  });
}
