import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAdapter } from '../../src/judges/adapters/index.ts';
import { parseJudgeConfig } from '../../src/judges/config.ts';
import type { RubricOutput } from '../../src/judges/contract.ts';
import { createJudgeEngine, type JudgeOutcome } from '../../src/judges/engine.ts';
import { MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import { scoreDescription } from '../../src/scoring/description/score.ts';
import { type PanelSample, votePanel } from '../../src/scoring/panel/index.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { verdictSet } from '../fake-provider/wire.ts';
import { farmyard, farmyardAnswer } from './harness.ts';

/**
 * The fake answers per model name, so a panel's members can be tested through the real SDKs: scripted
 * verdict sets per model, a model that always fails, another that never returns valid output.
 */

const ids = farmyard.items.map((i) => i.id);
const [a, b, c] = ids as [string, string, string];

const set = verdictSet;

const GPT = set({ [a]: 'correct', [b]: 'correct', [c]: 'partial' }, ['true', 'true']);
const MINI = set({ [a]: 'correct', [b]: 'missing', [c]: 'partial' }, ['true', 'false']);
const CLAUDE = set({ [a]: 'partial', [b]: 'correct', [c]: 'incorrect' }, ['true', 'unverifiable', 'true', 'true']);

const MODELS = {
  'gpt-4.1': [GPT],
  'gpt-4.1-mini': [MINI],
  'claude-sonnet-5': [CLAUDE],
  'always-down': [{ kind: 'status' as const, status: 500 }],
  garbled: [{ kind: 'text' as const, text: 'I think it is mostly right.' }],
};

async function engineFor(fake: FakeProvider, provider: 'openai' | 'anthropic', model: string) {
  const judge = parseJudgeConfig(
    { id: model, provider, model, prompt: 'prompts/rubric-v1.md', params: { max_tokens: 2000, temperature: 0, timeout_ms: 10_000, max_attempts: 2 } },
    `judge ${model}`,
  );
  const adapter = await createAdapter(judge, { anthropicApiKey: 'sk-ant-test', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-test', openaiBaseUrl: fake.openaiBaseUrl });
  return createJudgeEngine({ judge, adapter, cache: new MemoryCache(), ledger: new MemoryLedger(), sleep: async () => {}, random: mulberry32(3) });
}

const verdictsOf = (o: JudgeOutcome) => (o.output as RubricOutput).items.filter((i) => [a, b, c].includes(i.id)).map((i) => i.verdict);

/** A panel sample from a judge outcome: its verdicts and §2.1 correctness from its own claims. */
function sampleOf(judge: string, o: JudgeOutcome): PanelSample {
  if (o.status !== 'ok') return { judge, sample: 1, status: o.status, items: [], correctness: null };
  const out = o.output as RubricOutput;
  return { judge, sample: 1, status: 'ok', items: out.items, correctness: scoreDescription(farmyard, { items: out.items, claims: out.claims }).correctness };
}

describe('fake provider: per-model scripts', () => {
  let fake: FakeProvider;
  beforeEach(async () => {
    fake = await startFakeProvider({ models: MODELS });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('answers each model with its own verdict set, through both SDKs, concurrently', async () => {
    const [gpt, mini, claude] = await Promise.all([engineFor(fake, 'openai', 'gpt-4.1'), engineFor(fake, 'openai', 'gpt-4.1-mini'), engineFor(fake, 'anthropic', 'claude-sonnet-5')]);
    const outs = await Promise.all([gpt, mini, claude].map((e) => e.grade({ rubric: farmyard, answer: farmyardAnswer })));
    expect(outs.map((o) => o.status)).toEqual(['ok', 'ok', 'ok']);
    expect(outs.map(verdictsOf)).toEqual([
      ['correct', 'correct', 'partial'],
      ['correct', 'missing', 'partial'],
      ['partial', 'correct', 'incorrect'],
    ]);
    // Every other rubric item is missing in a verdict set, in the request's own item order.
    expect((outs[0]!.output as RubricOutput).items.map((i) => i.id)).toEqual(ids);
    expect(fake.calls.map((c) => c.provider).sort()).toEqual(['anthropic', 'openai', 'openai']);
  });

  it('a model that always fails is a provider_error after its retries; invalid output is a parse_failure after the re-ask', async () => {
    const down = await (await engineFor(fake, 'openai', 'always-down')).grade({ rubric: farmyard, answer: farmyardAnswer });
    expect(down.status).toBe('provider_error');
    expect(down.calls).toBe(2);
    const garbled = await (await engineFor(fake, 'anthropic', 'garbled')).grade({ rubric: farmyard, answer: farmyardAnswer });
    expect(garbled.status).toBe('parse_failure');
    expect(fake.calls.filter((c) => c.body.model === 'garbled')).toHaveLength(2);
  });

  it('counts each model’s steps over that model’s calls only, whatever the interleaving', async () => {
    fake.setModelScripts({ 'gpt-4.1': [GPT, MINI], 'gpt-4.1-mini': [CLAUDE] });
    const gpt = await engineFor(fake, 'openai', 'gpt-4.1');
    const mini = await engineFor(fake, 'openai', 'gpt-4.1-mini');
    const first = await gpt.grade({ rubric: farmyard, answer: 'one' });
    const other = await mini.grade({ rubric: farmyard, answer: 'two' });
    const second = await gpt.grade({ rubric: farmyard, answer: 'three' });
    const third = await gpt.grade({ rubric: farmyard, answer: 'four' });
    expect([first, other, second, third].map(verdictsOf)).toEqual([
      ['correct', 'correct', 'partial'],
      ['partial', 'correct', 'incorrect'],
      ['correct', 'missing', 'partial'],
      ['correct', 'missing', 'partial'], // the last step repeats
    ]);
  });

  it('models without a script of their own follow the default script, as before', async () => {
    fake.setScript([MINI]);
    const o = await (await engineFor(fake, 'openai', 'unlisted-model')).grade({ rubric: farmyard, answer: farmyardAnswer });
    expect(verdictsOf(o)).toEqual(['correct', 'missing', 'partial']);
  });

  it('a panel over three members and a failing fourth: votes worked by hand from the scripted sets', async () => {
    const members = [
      ['gpt-4.1', 'openai'],
      ['gpt-4.1-mini', 'openai'],
      ['claude-sonnet-5', 'anthropic'],
      ['always-down', 'openai'],
    ] as const;
    const outcomes = await Promise.all(members.map(async ([m, p]) => (await engineFor(fake, p, m)).grade({ rubric: farmyard, answer: farmyardAnswer })));
    const samples = members.map(([m], i) => sampleOf(m, outcomes[i]!));
    const r = votePanel(farmyard, samples);
    // 3 of 4 ok, quorum 3 (more than half of 4): ok at the quorum exactly.
    expect([r.status, r.okSamples, r.quorum]).toEqual(['ok', 3, 3]);
    // a: correct ×2, partial → correct; b: correct ×2, missing → correct; c: partial ×2, incorrect → partial.
    expect(r.items.slice(0, 3).map((it) => [it.verdict, it.agreement])).toEqual([
      ['correct', 2 / 3],
      ['correct', 2 / 3],
      ['partial', 2 / 3],
    ]);
    expect(r.items.slice(3).every((it) => it.verdict === 'missing' && it.agreement === 1)).toBe(true);
    // correctness: gpt 2/2, mini 1/2, claude 3/4 → mean 0.75
    expect(r.correctness).toBeCloseTo(0.75, 12);
    const w = (id: string) => farmyard.items.find((i) => i.id === id)!.weight;
    const total = farmyard.items.reduce((s, i) => s + i.weight, 0);
    expect(r.completeness).toBeCloseTo((w(a) + w(b) + 0.5 * w(c)) / total, 12);
    expect(r.members[3]).toEqual({ judge: 'always-down', sample: 1, status: 'provider_error', completeness: null, correctness: null });

    // Below the quorum: only two members answer.
    const two = votePanel(farmyard, [samples[0]!, samples[3]!, sampleOf('garbled', { ...outcomes[3]!, status: 'parse_failure' }), samples[1]!]);
    expect(two.status).toBe('no_quorum');
    expect(two.reason).toBe('2 of 4 samples ok, quorum 3: gpt-4.1#1 ok, always-down#1 provider_error, garbled#1 parse_failure, gpt-4.1-mini#1 ok');
    expect(two.f1).toBeNull();
  });
});
