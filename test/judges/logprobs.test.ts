import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAssayError } from '../../src/domain/errors.ts';
import { createAdapter } from '../../src/judges/adapters/index.ts';
import { createOpenAIJudge, type OpenAIJudgeReply } from '../../src/judges/adapters/openai.ts';
import { JUDGES_DIR, type JudgeParams, parseJudgeConfig } from '../../src/judges/config.ts';
import { outputJsonSchema } from '../../src/judges/contract.ts';
import { createJudgeEngine } from '../../src/judges/engine.ts';
import { assemblePrompt, loadTemplate } from '../../src/judges/prompt.ts';
import { MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import type { JudgeRequest } from '../../src/judges/types.ts';
import { STRUCTURE_PROB } from '../fake-provider/logprobs.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { openaiResponse } from '../fake-provider/wire.ts';
import { farmyard, farmyardAnswer } from './harness.ts';

/** Log-probability confidence in the OpenAI adapter, through the real openai SDK against the fake. */

const [i0, i1, i2, i3] = farmyard.items.map((i) => i.id) as [string, string, string, string];
const STEP = {
  kind: 'verdict-set' as const,
  verdicts: { [i0]: 'correct', [i1]: 'partial', [i2]: 'incorrect' } as const,
  claims: [{ text: 'there is a barn', verdict: 'true' as const }],
  confidence: { [i0]: 0.9, [i1]: 0.64, [i2]: 0.5 },
};

const PARAMS: JudgeParams = { max_tokens: 2000, temperature: 0, timeout_ms: 10_000, max_attempts: 1 };

function request(): JudgeRequest {
  const prompt = assemblePrompt(loadTemplate(join(JUDGES_DIR, 'prompts/rubric-v1.md')), farmyard, farmyardAnswer);
  return { mode: 'rubric', rubric: farmyard, prompt, answer: farmyardAnswer, answerHash: 'h', schema: outputJsonSchema('rubric', farmyard), timeoutMs: 10_000 };
}

describe('logprobs through the openai SDK', () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [STEP] });
  });
  afterAll(async () => {
    await fake.close();
  });

  const judge = (params: Partial<JudgeParams>) => createOpenAIJudge({ provider: 'openai', apiKey: 'sk-test', baseURL: fake.openaiBaseUrl, model: 'gpt-4.1', params: { ...PARAMS, ...params } });

  it('a judge that does not ask sends no logprobs field and gets no confidence', async () => {
    const n = fake.calls.length;
    const reply = await judge({}).call(request());
    const body = fake.calls[n]!.body;
    expect('logprobs' in body).toBe(false);
    expect('top_logprobs' in body).toBe(false);
    expect('confidence' in reply).toBe(false);
  });

  it('logprobs: true → each item’s verdict probability is the product over its tokens (p as scripted)', async () => {
    const n = fake.calls.length;
    const reply: OpenAIJudgeReply = await judge({ logprobs: true }).call(request());
    expect(fake.calls[n]!.body.logprobs).toBe(true);
    expect('top_logprobs' in fake.calls[n]!.body).toBe(false);
    const c = reply.confidence!;
    if (c.source !== 'logprobs') throw new Error(JSON.stringify(c));
    expect(c.items).toHaveLength(farmyard.items.length);
    const row = (id: string) => c.items.find((x) => x.id === id)!;
    // The fake tokenizes correct as 1 token, partial / incorrect / missing as 2, and puts ln(p)/m on each.
    expect([row(i0).verdict, row(i0).tokens]).toEqual(['correct', 1]);
    expect([row(i1).verdict, row(i1).tokens]).toEqual(['partial', 2]);
    expect([row(i2).verdict, row(i2).tokens]).toEqual(['incorrect', 2]);
    expect(row(i0).probability).toBeCloseTo(0.9, 12);
    expect(row(i1).probability).toBeCloseTo(0.64, 12);
    expect(row(i2).probability).toBeCloseTo(0.5, 12);
    // Unlisted item: missing, certain — not STRUCTURE_PROB, which is what the surrounding punctuation has.
    expect(row(i3).verdict).toBe('missing');
    expect(row(i3).probability).toBe(1);
    expect(STRUCTURE_PROB).toBeLessThan(1);
    expect(row(i0).distribution).toBeUndefined();
    // The reply text is the same JSON a judge without logprobs gets.
    expect(JSON.parse(reply.text).items[1]).toEqual({ id: i1, verdict: 'partial', evidence: '' });
  });

  it('top_logprobs: 4 → a distribution over the verdicts at the first token', async () => {
    const n = fake.calls.length;
    const reply = await judge({ logprobs: true, top_logprobs: 4 }).call(request());
    expect(fake.calls[n]!.body.top_logprobs).toBe(4);
    const c = reply.confidence!;
    if (c.source !== 'logprobs') throw new Error(JSON.stringify(c));
    const d1 = c.items.find((x) => x.id === i1)!.distribution!;
    // partial: first token 'part' has p^(1/2) = 0.8; the other three share 0.2 equally.
    expect(d1.partial).toBeCloseTo(0.8, 12);
    expect(d1.correct).toBeCloseTo(0.2 / 3, 12);
    expect(d1.incorrect).toBeCloseTo(0.2 / 3, 12);
    expect(d1.missing).toBeCloseTo(0.2 / 3, 12);
    const d0 = c.items.find((x) => x.id === i0)!.distribution!;
    expect(d0.correct).toBeCloseTo(0.9, 12);
    expect(d0.incorrect).toBeCloseTo(0.1 / 3, 12);
  });

  it('a server that ignores logprobs gives confidence none with the reason, and the verdicts stand', async () => {
    // An OpenAI-compatible server without logprobs support: it answers as if they were never asked for.
    const plain = await startFakeProvider({
      script: [STEP],
      routes: { 'POST /v1/chat/completions': (call, step, ctx) => openaiResponse(step(), { ...call, body: { ...call.body, logprobs: undefined } }, ctx.cache) },
    });
    try {
      const j = createOpenAIJudge({ provider: 'openai-compatible', apiKey: 'x', baseURL: plain.openaiBaseUrl, model: 'local', params: { ...PARAMS, logprobs: true } });
      const reply = await j.call(request());
      expect(plain.calls[0]!.body.logprobs).toBe(true);
      expect(reply.confidence).toEqual({ source: 'none', reason: 'the provider returned no token log-probabilities' });
      expect(JSON.parse(reply.text).items[0].verdict).toBe('correct');
    } finally {
      await plain.close();
    }
  });

  it('a reply that is not JSON, or a refusal, has no confidence and says why', async () => {
    fake.setScript([{ kind: 'text', text: 'not json at all' }]);
    const r = await judge({ logprobs: true }).call(request());
    expect(r.confidence).toEqual({ source: 'none', reason: 'the reply is not a JSON object, so no verdict can be located in it' });
    fake.setScript([{ kind: 'refusal' }]);
    expect((await judge({ logprobs: true }).call(request())).confidence).toEqual({ source: 'none', reason: 'the reply has no content (a refusal)' });
    fake.setScript([STEP]);
  });

  it('the engine grades a logprobs judge exactly as before (same verdicts, status ok)', async () => {
    const cfg = parseJudgeConfig({ id: 'lp', provider: 'openai', model: 'gpt-4.1', prompt: 'prompts/rubric-v1.md', params: { ...PARAMS, logprobs: true, top_logprobs: 2 } }, 'lp');
    const adapter = await createAdapter(cfg, { openaiApiKey: 'sk-test', openaiBaseUrl: fake.openaiBaseUrl });
    const engine = createJudgeEngine({ judge: cfg, adapter, cache: new MemoryCache(), ledger: new MemoryLedger() });
    const out = await engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    expect(out.status, out.reason ?? '').toBe('ok');
    expect((out.output as { items: Array<{ verdict: string }> }).items.slice(0, 4).map((i) => i.verdict)).toEqual(['correct', 'partial', 'incorrect', 'missing']);
  });
});

describe('logprobs params', () => {
  const bad = (raw: unknown) => {
    try {
      parseJudgeConfig(raw, 'j.yaml');
    } catch (e) {
      return isAssayError(e) && e.code === 'bad_input' ? e.message : String(e);
    }
    return 'accepted';
  };
  const base = { id: 'x', model: 'm', prompt: 'p.md' };

  it('are for openai and openai-compatible judges only, and top_logprobs needs logprobs', () => {
    expect(bad({ ...base, provider: 'openai', params: { logprobs: true, top_logprobs: 5 } })).toBe('accepted');
    expect(bad({ ...base, provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', params: { logprobs: true } })).toBe('accepted');
    expect(bad({ ...base, provider: 'anthropic', params: { logprobs: true } })).toBe('j.yaml: params.logprobs: only openai and openai-compatible judges return token log-probabilities, not anthropic');
    expect(bad({ ...base, provider: 'openai', params: { top_logprobs: 3 } })).toBe('j.yaml: params.top_logprobs: needs logprobs: true');
    expect(bad({ ...base, provider: 'openai', params: { logprobs: true, top_logprobs: 21 } })).toMatch(/params\.top_logprobs/);
  });

  it('leave the config hash of every judge that does not use them unchanged', () => {
    const a = parseJudgeConfig({ ...base, provider: 'openai' }, 'a').configHash;
    expect(parseJudgeConfig({ ...base, provider: 'openai', params: { max_tokens: 4096 } }, 'b').configHash).toBe(a);
    expect(parseJudgeConfig({ ...base, provider: 'openai', params: { logprobs: true } }, 'c').configHash).not.toBe(a);
  });
});
