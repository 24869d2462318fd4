import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBatchGrading } from '../../src/services/grading/batch.ts';
import { storeRubric } from '../../src/services/rubrics.ts';
import { type FakeProvider, type Step, startFakeProvider } from '../fake-provider/server.ts';
import type { RecordedCall } from '../fake-provider/wire.ts';
import { describeDb } from '../helpers/db.ts';
import { farmyard, fullVerdicts } from '../judges/harness.ts';
import { JUDGE_FILE, quietEngine, seedRun } from './helpers.ts';

/**
 * `assay run --batch` when what a batched request asked is no longer what the answer would be asked
 * now (the rubric got a new version, the answer's text changed, while the batch ran): a result is
 * stored only as the grade of the request it answers.
 */

const GPT_FILE = fileURLToPath(new URL('./fixtures/fake-gpt.yaml', import.meta.url));
const PROVIDERS = [
  { name: 'anthropic', judgeFile: JUDGE_FILE },
  { name: 'openai', judgeFile: GPT_FILE },
] as const;

const VERDICTS: Step = { kind: 'verdicts', output: fullVerdicts() };
const bodyText = (call: RecordedCall): string => JSON.stringify(call.body ?? {});

for (const p of PROVIDERS) {
  describeDb(`batch integrity (${p.name})`, (ctx) => {
    let fake: FakeProvider;
    /** Every request the fake answered (live or batched), as the text it was sent. */
    let asked: string[] = [];
    const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl });
    const run = (name: string, extra: Partial<Parameters<typeof runBatchGrading>[1]> = {}) =>
      runBatchGrading(ctx.database, { run: name, judge: p.judgeFile, keys: keys(), pollIntervalMs: 5, engine: quietEngine, ...extra });

    beforeAll(async () => {
      fake = await startFakeProvider({
        script: (call) => {
          asked.push(bodyText(call));
          return VERDICTS;
        },
      });
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('a rubric reworded while the batch ran: no grade of the new version from a request that showed the old one', async () => {
      asked = [];
      const slug = `${farmyard.id}-${p.name}-rv`;
      const v1 = { ...farmyard, id: slug };
      const first = farmyard.items[0]!;
      const v2 = { ...v1, items: [{ ...first, text: `${first.text} (REWORDED: a blue barn)` }, ...farmyard.items.slice(1)] };
      await ctx.database.db.transaction((tx) => storeRubric(tx, v1));
      const name = `${p.name}-rubric-moved`;
      const { runId } = await seedRun(ctx.database, name, 3, (i) => `reworded answer ${i}: a farmyard with ${i} hens.`);
      await ctx.database.execute(`update answers set rubric_id = (select id from rubrics where slug = $1) where run_id = $2`, [slug, runId]);
      let moved = false;
      const res = await run(name, {
        sleep: async () => {
          if (moved) return;
          moved = true;
          await ctx.database.db.transaction((tx) => storeRubric(tx, v2));
        },
      });
      expect(moved).toBe(true);
      const grades = (
        await ctx.database.execute(
          `select g.status, v.version from grades g join rubric_versions v on v.id = g.rubric_version_id join answers a on a.id = g.answer_id where a.run_id = $1 order by a.id`,
          [runId],
        )
      ).rows;
      expect(grades).toHaveLength(3);
      // Each grade is of version 2 only if a request that showed version 2's wording was answered.
      const sawV2 = asked.filter((t) => t.includes('REWORDED: a blue barn')).length;
      for (const g of grades) if (Number(g.version) === 2) expect(sawV2).toBeGreaterThanOrEqual(3);
      expect(grades.map((g) => g.status)).toEqual(['ok', 'ok', 'ok']);
      expect(res).toMatchObject({ graded: 3, failed: 0 });
    });

    it("an answer's text changed while the batch ran: the verdicts on the old text are not stored as the new text's grade", async () => {
      asked = [];
      const name = `${p.name}-text-moved`;
      const { runId, answerIds } = await seedRun(ctx.database, name, 2, (i) => `moved answer ${i}: a farmyard with ${i} geese.`);
      let moved = false;
      const res = await run(name, {
        sleep: async () => {
          if (moved) return;
          moved = true;
          await ctx.database.execute(`update answers set text = 'moved answer 0: NOW SEVEN DONKEYS.' where id = $1`, [answerIds[0]]);
        },
      });
      expect(moved).toBe(true);
      const g = (await ctx.database.execute(`select g.answer_id, g.status from grades g join answers a on a.id = g.answer_id where a.run_id = $1 order by a.id`, [runId])).rows;
      expect(g.map((x) => x.status)).toEqual(['ok', 'ok']);
      // The grade of answer 0 is of its current text: a request showing that text was answered.
      expect(asked.some((t) => t.includes('NOW SEVEN DONKEYS'))).toBe(true);
      expect(res).toMatchObject({ graded: 2, failed: 0 });
    });

    it('an answer changed between the intent and a restart: the batch is created for it as it is now, and created once', async () => {
      asked = [];
      const name = `${p.name}-intent-moved`;
      const { runId, answerIds } = await seedRun(ctx.database, name, 2, (i) => `intent answer ${i}: a farmyard with ${i} goats.`);
      const die = () => {
        throw new Error('simulated crash');
      };
      await expect(run(name, { hooks: { afterIntent: die } })).rejects.toThrow('simulated crash');
      await ctx.database.execute(`update answers set text = 'intent answer 0: NOW NINE LLAMAS.' where id = $1`, [answerIds[0]]);
      const res = await run(name);
      expect(res).toMatchObject({ created: 1, graded: 2, failed: 0, resubmitted: 0 });
      expect(asked.filter((t) => t.includes('NOW NINE LLAMAS'))).toHaveLength(1);
      const g = (await ctx.database.execute(`select g.status from grades g join answers a on a.id = g.answer_id where a.run_id = $1 order by a.id`, [runId])).rows;
      expect(g.map((x) => x.status)).toEqual(['ok', 'ok']);
    });
  });
}

describeDb('batch reconciliation (openai): a batch without our intent is never taken for ours', (ctx) => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [VERDICTS] });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("a crash after create: the restart adopts the batch carrying the row's intent, not an older one of the same size made by something else", async () => {
    const { default: OpenAI, toFile } = await import('openai');
    const sdk = new OpenAI({ apiKey: 'sk-oai', baseURL: fake.openaiBaseUrl });
    // Someone else's batch on the same key, minutes before ours, of the same number of requests.
    const line = (i: number) => JSON.stringify({ custom_id: `other-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4.1', messages: [{ role: 'user', content: `hello ${i}` }] } });
    const file = await sdk.files.create({ file: await toFile(Buffer.from([0, 1, 2].map(line).join('\n')), 'other.jsonl'), purpose: 'batch' });
    await sdk.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });

    const name = 'openai-foreign';
    const { runId } = await seedRun(ctx.database, name, 3, (i) => `foreign answer ${i}: a farmyard with ${i} owls.`);
    const keys = { openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl };
    const opts = { run: name, judge: GPT_FILE, keys, pollIntervalMs: 5, engine: quietEngine };
    const die = () => {
      throw new Error('simulated crash');
    };
    await expect(runBatchGrading(ctx.database, { ...opts, hooks: { afterCreate: die } })).rejects.toThrow('simulated crash');
    const res = await runBatchGrading(ctx.database, opts);
    expect(res).toMatchObject({ created: 0, adopted: 1, resubmitted: 0, graded: 3, failed: 0 });
    const g = (await ctx.database.execute(`select g.status from grades g join answers a on a.id = g.answer_id where a.run_id = $1`, [runId])).rows;
    expect(g.map((x) => x.status)).toEqual(['ok', 'ok', 'ok']);
    expect(fake.calls.filter((c) => c.method === 'POST' && c.path.split('?')[0] === '/v1/batches')).toHaveLength(2);
  });
});
