import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBatchGrading } from '../../src/services/grading/batch.ts';
import { type FakeProvider, type RouteHandler, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { JUDGE_FILE, quietEngine, seedRun, VERDICTS } from './helpers.ts';

/**
 * Malformed batch results from the provider (a line that is no JSON, no object, a success without a
 * message, an error of another shape): each is an item that failed, with a reason, resubmitted like an
 * errored one; the other items of the batch are graded. Before, one such line threw out of the whole
 * collection (exit 1 with a stack), and every run again threw the same way, grading nothing of the batch.
 */

const GPT_FILE = fileURLToPath(new URL('./fixtures/fake-gpt.yaml', import.meta.url));

interface AnthropicBatch { lines: unknown[] }
interface OpenAIBatch { outputFileId: string }

/** Spoils the newest batch's results once, the way each provider's results could come back broken. */
const TAMPER: Record<'anthropic' | 'openai', RouteHandler> = {
  anthropic: (_call, _step, ctx) => {
    const b = [...(ctx.state.get('anthropic-batches') as Map<string, AnthropicBatch>).values()].at(-1)!;
    const l = b.lines as Array<{ custom_id: string }>;
    b.lines = [
      'not an object',
      { custom_id: l[1]!.custom_id, result: { type: 'succeeded' } },
      { custom_id: l[2]!.custom_id, result: { type: 'errored', error: { type: 'invalid_request_error', message: 'flat error' } } },
      { custom_id: l[3]!.custom_id, result: { type: 'something_new' } },
      ...l.slice(4),
    ];
    return { status: 200, body: { ok: true } };
  },
  openai: (_call, _step, ctx) => {
    const b = [...(ctx.state.get('openai-batches') as Map<string, OpenAIBatch>).values()].at(-1)!;
    const files = ctx.state.get('openai-files') as Map<string, string>;
    const lines = files.get(b.outputFileId)!.split('\n').filter((x) => x.trim() !== '');
    const cid = (i: number) => (JSON.parse(lines[i]!) as { custom_id: string }).custom_id;
    files.set(b.outputFileId, ['{"custom_id": "cut off', 'null', JSON.stringify({ custom_id: cid(2), response: { status_code: 200, body: null }, error: null }), JSON.stringify({ custom_id: cid(3), response: 'what' }), ...lines.slice(4)].join('\n'));
    return { status: 200, body: { ok: true } };
  },
};

/** The newest batch's results name one item twice: its success, then an error for the same custom_id. */
const DUPLICATE: Record<'anthropic' | 'openai', RouteHandler> = {
  anthropic: (_call, _step, ctx) => {
    const b = [...(ctx.state.get('anthropic-batches') as Map<string, AnthropicBatch>).values()].at(-1)!;
    const first = b.lines[0] as { custom_id: string };
    b.lines.push({ custom_id: first.custom_id, result: { type: 'errored', error: { type: 'error', error: { type: 'api_error', message: 'duplicate line' } } } });
    return { status: 200, body: { ok: true } };
  },
  openai: (_call, _step, ctx) => {
    const b = [...(ctx.state.get('openai-batches') as Map<string, OpenAIBatch>).values()].at(-1)!;
    const files = ctx.state.get('openai-files') as Map<string, string>;
    const text = files.get(b.outputFileId)!;
    const cid = (JSON.parse(text.split('\n')[0]!) as { custom_id: string }).custom_id;
    files.set(b.outputFileId, `${text}${JSON.stringify({ custom_id: cid, response: { status_code: 500, body: { error: { message: 'duplicate line' } } }, error: null })}\n`);
    return { status: 200, body: { ok: true } };
  },
};

/** The provider forgets every batch (results past their retention, another account's key). */
const FORGET: RouteHandler = (_call, _step, ctx) => {
  (ctx.state.get('anthropic-batches') as Map<string, unknown> | undefined)?.clear();
  (ctx.state.get('openai-batches') as Map<string, unknown> | undefined)?.clear();
  return { status: 200, body: { ok: true } };
};
const poke = (url: string, path: string) => fetch(`${url}${path}`, { method: 'POST', headers: { 'x-api-key': 'sk-ant', authorization: 'Bearer sk-oai', 'content-type': 'application/json' }, body: '{}' });

for (const p of [
  { name: 'anthropic', judgeFile: JUDGE_FILE },
  { name: 'openai', judgeFile: GPT_FILE },
] as const) {
  describeDb(`batch malformed results (${p.name})`, (ctx) => {
    let fake: FakeProvider;
    const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl });
    beforeAll(async () => {
      fake = await startFakeProvider({ script: [VERDICTS], routes: { 'POST /test/tamper': TAMPER[p.name], 'POST /test/forget': FORGET, 'POST /test/duplicate': DUPLICATE[p.name] } });
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('broken result lines are failed items with a reason, resubmitted once; the rest of the batch is graded', async () => {
      const name = `${p.name}-malformed`;
      const n = 6;
      const { runId } = await seedRun(ctx.database, name, n, (i) => `malformed answer ${i}: a farmyard with ${i} hens.`);
      let tampered = false;
      const res = await runBatchGrading(ctx.database, {
        run: name,
        judge: p.judgeFile,
        keys: keys(),
        pollIntervalMs: 5,
        engine: quietEngine,
        sleep: async () => {
          if (tampered) return;
          tampered = true;
          await fetch(`${fake.url}/test/tamper`, { method: 'POST', headers: { 'x-api-key': 'sk-ant', authorization: 'Bearer sk-oai', 'content-type': 'application/json' }, body: '{}' });
        },
      });
      expect(tampered).toBe(true);
      // Items 0-3 came back broken: asked again once (attempt 2), then graded; 4 and 5 graded from the first batch.
      expect(res).toMatchObject({ created: 2, resubmitted: 4, graded: n, failed: 0 });
      const g = (await ctx.database.execute(`select g.status from grades g join answers a on a.id = g.answer_id where a.run_id = $1 order by a.id`, [runId])).rows;
      expect(g.map((x) => x.status)).toEqual(Array(n).fill('ok'));
    });

    it('an item named twice in the results, a success and an error: the success is its result, nothing is bought again', async () => {
      const name = `${p.name}-twice-named`;
      const { runId } = await seedRun(ctx.database, name, 3, (i) => `named twice ${i}: a farmyard with ${i} cats.`);
      let done = false;
      const res = await runBatchGrading(ctx.database, {
        run: name,
        judge: p.judgeFile,
        keys: keys(),
        pollIntervalMs: 5,
        engine: quietEngine,
        sleep: async () => {
          if (done) return;
          done = true;
          await poke(fake.url, '/test/duplicate');
        },
      });
      expect(done).toBe(true);
      expect(res).toMatchObject({ created: 1, resubmitted: 0, graded: 3, failed: 0 });
      const g = (await ctx.database.execute(`select g.status from grades g join answers a on a.id = g.answer_id where a.run_id = $1`, [runId])).rows;
      expect(g.map((x) => x.status)).toEqual(['ok', 'ok', 'ok']);
    });

    it('a recorded batch the provider no longer has (404): its answers are asked again in a new batch, not a crash on every run', async () => {
      const name = `${p.name}-forgotten`;
      const { runId } = await seedRun(ctx.database, name, 3, (i) => `forgotten answer ${i}: a farmyard with ${i} ducks.`);
      const opts = { run: name, judge: p.judgeFile, keys: keys(), pollIntervalMs: 5, engine: quietEngine };
      await expect(
        runBatchGrading(ctx.database, {
          ...opts,
          sleep: async () => {
            throw new Error('simulated crash while waiting');
          },
        }),
      ).rejects.toThrow('simulated crash');
      await poke(fake.url, '/test/forget');
      const res = await runBatchGrading(ctx.database, opts);
      expect(res).toMatchObject({ created: 1, resubmitted: 3, graded: 3, failed: 0 });
      const g = (await ctx.database.execute(`select g.status from grades g join answers a on a.id = g.answer_id where a.run_id = $1`, [runId])).rows;
      expect(g.map((x) => x.status)).toEqual(['ok', 'ok', 'ok']);
      const rows = (await ctx.database.execute(`select attempt, state from provider_batches where run_id = $1 order by id`, [runId])).rows;
      expect(rows).toEqual([{ attempt: 1, state: 'reconciled' }, { attempt: 2, state: 'reconciled' }]);
    });

    it('broken again after the resubmission: provider_error grades that say why, the run reports them failed', async () => {
      const name = `${p.name}-malformed-twice`;
      const { runId } = await seedRun(ctx.database, name, 6, (i) => `malformed twice ${i}: a farmyard with ${i} pigs.`);
      const res = await runBatchGrading(ctx.database, {
        run: name,
        judge: p.judgeFile,
        keys: keys(),
        pollIntervalMs: 5,
        engine: quietEngine,
        // Each batch is polled once before it ends: its results are spoilt every time.
        sleep: async () => {
          await fetch(`${fake.url}/test/tamper`, { method: 'POST', headers: { 'x-api-key': 'sk-ant', authorization: 'Bearer sk-oai', 'content-type': 'application/json' }, body: '{}' });
        },
      });
      expect(res).toMatchObject({ created: 2, resubmitted: 4, graded: 2, failed: 4 });
      const g = (await ctx.database.execute(`select g.status, g.reason, g.completeness, g.correctness, g.f1 from grades g join answers a on a.id = g.answer_id where a.run_id = $1`, [runId])).rows;
      const failed = g.filter((x) => x.status === 'provider_error');
      expect(failed).toHaveLength(4);
      for (const f of failed) expect(String(f.reason)).toMatch(/after resubmission/);
      // A judge failure is no score: not 0.
      for (const f of failed) expect([f.completeness, f.correctness, f.f1]).toEqual([null, null, null]);
      expect(failed.filter((f) => /malformed/.test(String(f.reason))).length).toBe(2);
    });
  });
}

describeDb('batch failed as a whole (openai)', (ctx) => {
  let fake: FakeProvider;
  // The provider refuses the whole batch (input validation): status failed, errors, no output or error file.
  const failed: RouteHandler = (call) => ({
    status: 200,
    body: {
      id: call.path.split('/').pop()!.split('?')[0],
      object: 'batch',
      endpoint: '/v1/chat/completions',
      status: 'failed',
      errors: { object: 'list', data: [{ code: 'model_not_found', message: 'The model gpt-4.1 does not exist for batch', line: 1, param: 'body.model' }] },
      input_file_id: 'file-x',
      completion_window: '24h',
      output_file_id: null,
      error_file_id: null,
      created_at: Math.floor(Date.now() / 1000),
      request_counts: { total: 0, completed: 0, failed: 0 },
      metadata: null,
    },
  });
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [VERDICTS], routes: { 'GET /v1/batches/batch_fake_1': failed, 'GET /v1/batches/batch_fake_2': failed } });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("its answers are asked again once, then failed with the provider's reason", async () => {
    const { runId } = await seedRun(ctx.database, 'openai-refused', 2, (i) => `refused batch ${i}: a farmyard with ${i} bees.`);
    const res = await runBatchGrading(ctx.database, { run: 'openai-refused', judge: GPT_FILE, keys: { openaiApiKey: 'sk-oai', openaiBaseUrl: fake.openaiBaseUrl }, pollIntervalMs: 5, engine: quietEngine });
    expect(res).toMatchObject({ created: 2, resubmitted: 2, graded: 0, failed: 2 });
    const g = (await ctx.database.execute(`select g.status, g.reason from grades g join answers a on a.id = g.answer_id where a.run_id = $1`, [runId])).rows;
    expect(g.map((x) => x.status)).toEqual(['provider_error', 'provider_error']);
    for (const x of g) expect(String(x.reason)).toMatch(/failed.*model_not_found: The model gpt-4\.1 does not exist/);
  });
});
