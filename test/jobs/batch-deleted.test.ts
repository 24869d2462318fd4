import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBatchGrading } from '../../src/services/grading/batch.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { JUDGE_FILE, quietEngine, seedRun, VERDICTS } from './helpers.ts';

/**
 * Answers deleted between an intent row and its submission (a crash, then a restart hours later): the
 * batch is sent for the answers that are left, instead of every later run stopping on 'answer N not
 * found' with the other answers never graded; an intent with no answer left sends nothing.
 */

const GPT_FILE = fileURLToPath(new URL('./fixtures/fake-gpt.yaml', import.meta.url));
const PROVIDERS = [
  { name: 'anthropic', judgeFile: JUDGE_FILE, creates: 'POST /v1/messages/batches' },
  { name: 'openai', judgeFile: GPT_FILE, creates: 'POST /v1/batches' },
] as const;
const creates = (fake: FakeProvider, key: string) => fake.calls.filter((c) => `${c.method} ${c.path.split('?')[0]}` === key).length;

for (const p of PROVIDERS) {
  describeDb(`batch with answers deleted before submission (${p.name})`, (ctx) => {
    let fake: FakeProvider;
    const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl });
    const run = (name: string, extra: Partial<Parameters<typeof runBatchGrading>[1]> = {}) =>
      runBatchGrading(ctx.database, { run: name, judge: p.judgeFile, keys: keys(), pollIntervalMs: 5, engine: quietEngine, ...extra });
    const crash = { afterIntent: () => Promise.reject(new Error('simulated crash after the intent')) };
    const statuses = async (runId: number) => (await ctx.database.execute(`select g.status from grades g join answers a on a.id = g.answer_id where a.run_id = $1 order by a.id`, [runId])).rows.map((r) => r.status);

    beforeAll(async () => {
      fake = await startFakeProvider({ script: () => VERDICTS });
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('an answer deleted after the intent: the restart sends the others and grades them', async () => {
      const name = `${p.name}-deleted-before-submit`;
      const { runId, answerIds } = await seedRun(ctx.database, name, 3, (i) => `deleted before submit ${i}: a farmyard with ${i} hens.`);
      await expect(run(name, { hooks: crash })).rejects.toThrow('simulated crash');
      await ctx.database.execute(`delete from answers where id = $1`, [answerIds[1]]);
      const before = creates(fake, p.creates);
      expect(await run(name)).toMatchObject({ created: 1, graded: 2, failed: 0 });
      expect(creates(fake, p.creates) - before).toBe(1);
      expect(await statuses(runId)).toEqual(['ok', 'ok']);
    });

    it('every answer of the intent deleted: nothing is sent and the intent is closed', async () => {
      const name = `${p.name}-all-deleted`;
      const { runId } = await seedRun(ctx.database, name, 2, (i) => `all deleted ${i}: a farmyard with ${i} hens.`);
      await expect(run(name, { hooks: crash })).rejects.toThrow('simulated crash');
      await ctx.database.execute(`delete from answers where run_id = $1`, [runId]);
      const before = creates(fake, p.creates);
      expect(await run(name)).toMatchObject({ created: 0, graded: 0, failed: 0 });
      expect(creates(fake, p.creates)).toBe(before);
      const rows = (await ctx.database.execute(`select state from provider_batches where run_id = $1`, [runId])).rows;
      expect(rows.map((r) => r.state)).toEqual(['reconciled']);
    });
  });
}
