import { afterEach, expect, it } from 'vitest';
import { setTracer } from '../../src/judges/telemetry.ts';
import { anthropicResponse, openaiResponse } from '../fake-provider/wire.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { farmyard, farmyardAnswer, fullVerdicts, harness } from './harness.ts';

/**
 * The `chat <model>` span's token attributes follow the GenAI conventions: gen_ai.usage.input_tokens is
 * every input token, cached ones included ("SHOULD include all types of input tokens, including cached
 * tokens"), with the cache reads and writes as gen_ai.usage.cache_read.input_tokens and
 * gen_ai.usage.cache_creation.input_tokens. Before, input_tokens was the ledger's uncached input: an
 * Anthropic call reading 3000 cached tokens said 1000, and an OpenAI call's prompt_tokens lost its cached part.
 */

const good = { kind: 'verdicts' as const, output: fullVerdicts() };
let fake: FakeProvider | undefined;
afterEach(async () => {
  setTracer(null);
  await fake?.close();
  fake = undefined;
});

function recordingTracer(): { attrs: Array<Record<string, unknown>>; tracer: never } {
  const attrs: Array<Record<string, unknown>> = [];
  const tracer = {
    startActiveSpan(_name: string, opts: { attributes?: Record<string, unknown> }, fn: (span: unknown) => unknown) {
      const a: Record<string, unknown> = { ...(opts.attributes ?? {}) };
      attrs.push(a);
      const span = { setAttribute: (k: string, v: unknown) => void (a[k] = v), setAttributes: (o: Record<string, unknown>) => void Object.assign(a, o), setStatus() {}, end() {} };
      return fn(span);
    },
  };
  return { attrs, tracer: tracer as never };
}

it('anthropic: input_tokens adds the cache reads and writes to the uncached input', async () => {
  fake = await startFakeProvider({
    script: [good],
    routes: {
      'POST /v1/messages': (call, step, ctx) => {
        const r = anthropicResponse(step(), call, ctx.cache) as { body: { usage: unknown } };
        r.body.usage = { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 3000, cache_creation_input_tokens: 500 };
        return r as never;
      },
    },
  });
  const { attrs, tracer } = recordingTracer();
  setTracer(tracer);
  const h = await harness('anthropic', fake);
  const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
  expect(out.usage).toEqual({ input: 1000, output: 200, cacheRead: 3000, cacheWrite: 500 });
  expect(attrs).toHaveLength(1);
  expect(attrs[0]).toMatchObject({ 'gen_ai.usage.input_tokens': 4500, 'gen_ai.usage.output_tokens': 200, 'gen_ai.usage.cache_read.input_tokens': 3000, 'gen_ai.usage.cache_creation.input_tokens': 500 });
});

it("openai: input_tokens is the provider's prompt_tokens (cached ones included)", async () => {
  fake = await startFakeProvider({
    script: [good],
    routes: {
      'POST /v1/chat/completions': (call, step, ctx) => {
        const r = openaiResponse(step(), call, ctx.cache) as { body: { usage: unknown } };
        r.body.usage = { prompt_tokens: 5000, completion_tokens: 300, total_tokens: 5300, prompt_tokens_details: { cached_tokens: 2048 } };
        return r as never;
      },
    },
  });
  const { attrs, tracer } = recordingTracer();
  setTracer(tracer);
  const h = await harness('openai', fake);
  const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
  expect(out.usage).toEqual({ input: 2952, output: 300, cacheRead: 2048, cacheWrite: 0 });
  expect(attrs[0]).toMatchObject({ 'gen_ai.usage.input_tokens': 5000, 'gen_ai.usage.output_tokens': 300, 'gen_ai.usage.cache_read.input_tokens': 2048, 'gen_ai.usage.cache_creation.input_tokens': 0 });
});
