import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBatchGrading } from '../../src/services/grading/batch.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { JUDGE_FILE, quietEngine, seedRun, VERDICTS } from './helpers.ts';

/**
 * A judge file edited while its batch was at the provider (between submit and collect): the edited
 * file is another judge configuration (another judges row), and the batch was made by the one before.
 * The paid batch must not be left behind unsaid while the edited judge buys every answer again.
 */

const GPT_FILE = fileURLToPath(new URL('./fixtures/fake-gpt.yaml', import.meta.url));
const PROVIDERS = [
  { name: 'anthropic', judgeFile: JUDGE_FILE, creates: 'POST /v1/messages/batches' },
  { name: 'openai', judgeFile: GPT_FILE, creates: 'POST /v1/batches' },
] as const;

const creates = (fake: FakeProvider, key: string) => fake.calls.filter((c) => `${c.method} ${c.path.split('?')[0]}` === key).length;

/** The judge file with another max_tokens: same id, another config hash. */
function edited(file: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'assay-judge-edit-'));
  const out = join(dir, 'judge.yaml');
  writeFileSync(out, readFileSync(file, 'utf8').replace('max_tokens: 1000', 'max_tokens: 1200'));
  return out;
}

for (const p of PROVIDERS) {
  describeDb(`batch after the judge file changed (${p.name})`, (ctx) => {
    let fake: FakeProvider;
    const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl });
    const run = (name: string, judge: string, extra: Partial<Parameters<typeof runBatchGrading>[1]> = {}) =>
      runBatchGrading(ctx.database, { run: name, judge, keys: keys(), pollIntervalMs: 5, engine: quietEngine, ...extra });
    const crash = async () => {
      throw new Error('simulated crash while waiting');
    };

    beforeAll(async () => {
      fake = await startFakeProvider({ script: () => VERDICTS });
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('the edited judge refuses, naming the unfinished batch, and buys nothing; the judge as it was collects it', async () => {
      const name = `${p.name}-judge-edited`;
      const { runId } = await seedRun(ctx.database, name, 3, (i) => `edited judge answer ${i}: a farmyard with ${i} hens.`);
      await expect(run(name, p.judgeFile, { sleep: crash })).rejects.toThrow('simulated crash');
      const [row] = (await ctx.database.execute(`select provider_batch_id from provider_batches where run_id = $1`, [runId])).rows;
      const batchId = String(row!.provider_batch_id);
      const before = creates(fake, p.creates);
      const err = await run(name, edited(p.judgeFile)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'conflict', message: expect.stringContaining(batchId) });
      expect(creates(fake, p.creates)).toBe(before);
      expect(Number((await ctx.database.execute(`select count(*)::int as n from provider_batches where run_id = $1`, [runId])).rows[0]!.n)).toBe(1);
      expect(Number((await ctx.database.execute(`select count(*)::int as n from grades g join answers a on a.id = g.answer_id where a.run_id = $1`, [runId])).rows[0]!.n)).toBe(0);
      // The judge file as it was when the batch was made collects it: nothing bought again.
      expect(await run(name, p.judgeFile)).toMatchObject({ created: 0, graded: 3, failed: 0 });
      expect(creates(fake, p.creates)).toBe(before);
      // Collected: the edited judge is now a judge like any other and grades the run itself.
      expect(await run(name, edited(p.judgeFile))).toMatchObject({ created: 1, graded: 3, failed: 0 });
    });
  });
}
