import { expect, it } from 'vitest';
import { parseJudgeConfig } from '../../src/judges/config.ts';
import { createJudgeEngine, pendingEstimate } from '../../src/judges/engine.ts';
import { type LedgerEntry, MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import { type Judge, type JudgeRequest, ProviderCallError } from '../../src/judges/types.ts';
import { farmyard, farmyardAnswer, fullVerdicts } from '../judges/harness.ts';

/**
 * The engine writes each call's ledger row, pending, before the request is sent and settles it after;
 * nothing is recorded for a call that never left (refused at the gate, or its job lease lost).
 */

const judge = parseJudgeConfig(
  { id: 'pl', provider: 'anthropic', model: 'claude-sonnet-5', mode: 'rubric', prompt: 'prompts/rubric-v1.md', params: { max_tokens: 2000, temperature: 0, timeout_ms: 10_000, max_attempts: 2 } },
  'test judge',
);
const reply = { text: JSON.stringify(fullVerdicts()), structured: fullVerdicts(), stop: 'complete' as const, usage: { input: 900, output: 120, cacheRead: 0, cacheWrite: 0 } };
const input = { rubric: farmyard, answer: farmyardAnswer, answerId: '7' };

it('a call finds its pending row already written when it is sent; the row is settled with the reply', async () => {
  const ledger = new MemoryLedger();
  const seen: LedgerEntry[][] = [];
  const adapter: Judge = { provider: 'anthropic', model: 'claude-sonnet-5', baseline: false, call: async () => (seen.push(structuredClone(ledger.entries)), reply) };
  const engine = createJudgeEngine({ judge, adapter, cache: new MemoryCache(), ledger, sleep: async () => {} });
  const out = await engine.grade(input);
  expect(out.status).toBe('ok');
  expect(seen).toHaveLength(1);
  expect(seen[0]!.map((e) => e.status)).toEqual(['pending']);
  // The estimate over-counts: every prompt byte as an input token, the whole output budget.
  expect(seen[0]![0]!.usage.output).toBe(2000);
  expect(seen[0]![0]!.usage.input).toBeGreaterThan(reply.usage.input);
  expect(seen[0]![0]!.costUsd!).toBeGreaterThan(out.costUsd!);
  expect(ledger.entries.map((e) => [e.callKey, e.status, e.usage.input, e.costUsd])).toEqual([[seen[0]![0]!.callKey, 'ok', 900, out.costUsd]]);
});

it('a failed attempt settles its own row; the retry gets a new one', async () => {
  const ledger = new MemoryLedger();
  let n = 0;
  const adapter: Judge = { provider: 'anthropic', model: 'claude-sonnet-5', baseline: false, call: async () => {
    if (n++ === 0) throw new ProviderCallError('retryable', 'overloaded', 529);
    return reply;
  } };
  const out = await createJudgeEngine({ judge, adapter, cache: new MemoryCache(), ledger, sleep: async () => {} }).grade(input);
  expect([out.status, out.calls]).toEqual(['ok', 2]);
  expect(ledger.entries.map((e) => e.status)).toEqual(['retryable_error', 'ok']);
  expect(new Set(ledger.entries.map((e) => e.callKey)).size).toBe(2);
});

it('a lost lease sends nothing and records nothing; a call refused at the gate is not counted', async () => {
  const sent: JudgeRequest[] = [];
  const adapter: Judge = { provider: 'anthropic', model: 'claude-sonnet-5', baseline: false, call: async (req) => (sent.push(req), reply) };
  const refusing = new (class extends MemoryLedger {
    override async begin(): Promise<boolean> {
      return false;
    }
  })();
  const lost = await createJudgeEngine({ judge, adapter, cache: new MemoryCache(), ledger: refusing, sleep: async () => {} }).grade({ ...input, lease: { queue: 'q', jobId: 'j', token: 0 } });
  expect(lost).toMatchObject({ status: 'provider_error', leaseLost: true, calls: 0 });
  expect([sent.length, refusing.entries.length]).toEqual([0, 0]);

  const ledger = new MemoryLedger();
  const gate = async () => {
    throw new ProviderCallError('fatal', 'rate limiter unavailable');
  };
  const refused = await createJudgeEngine({ judge, adapter, cache: new MemoryCache(), ledger, gate, sleep: async () => {} }).grade(input);
  expect(refused).toMatchObject({ status: 'provider_error', calls: 0 });
  expect([sent.length, ledger.entries.length]).toEqual([0, 0]);
});

it('pendingEstimate counts the prompt in UTF-8 bytes and the output budget', () => {
  const prompt = { system: 'é', staticText: 'ab', answerText: '€', boundary: '', promptHash: '', staticHash: '', neutralised: 0 };
  expect(pendingEstimate({ prompt } as unknown as JudgeRequest, 50)).toEqual({ input: 2 + 2 + 3, output: 50, cacheRead: 0, cacheWrite: 0 });
});
