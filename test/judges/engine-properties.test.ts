import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJudgeConfig } from '../../src/judges/config.ts';
import { createJudgeEngine } from '../../src/judges/engine.ts';
import { buildReport } from '../../src/judges/report.ts';
import { MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import { type Judge, type JudgeReply, ProviderCallError, ZERO_USAGE } from '../../src/judges/types.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { farmyard, farmyardAnswer, fullVerdicts } from './harness.ts';

/**
 * Properties of the engine over arbitrary sequences of provider behaviour (an in-process scripted
 * adapter, so thousands of runs are cheap): a failure never carries verdicts or scores, calls are
 * bounded, and the ledger has one row per call.
 */
type Event = 'good' | 'bad-ids' | 'prose' | 'junk' | 'truncated' | 'refused' | 'retryable' | 'fatal' | 'stop-run';

const reply = (e: Event): JudgeReply => {
  const good = fullVerdicts();
  const table: Record<string, () => JudgeReply> = {
    good: () => ({ structured: good, text: JSON.stringify(good), stop: 'complete', usage: { ...ZERO_USAGE, input: 10 } }),
    'bad-ids': () => ({ structured: { ...good, items: good.items.slice(1) }, text: '', stop: 'complete', usage: ZERO_USAGE }),
    prose: () => ({ text: `Verdicts: ${JSON.stringify(good)}`, stop: 'complete', usage: ZERO_USAGE }),
    junk: () => ({ text: 'I think it is fine.', stop: 'complete', usage: ZERO_USAGE }),
    truncated: () => ({ text: '{"items":[', stop: 'truncated', usage: ZERO_USAGE }),
    refused: () => ({ text: '', stop: 'refused', usage: ZERO_USAGE }),
  };
  return table[e]!();
};

function scripted(events: Event[]): Judge & { calls: number } {
  let i = 0;
  return {
    provider: 'anthropic',
    model: 'claude-sonnet-5',
    baseline: false,
    calls: 0,
    async call() {
      this.calls++;
      const e = events[Math.min(i++, events.length - 1)]!;
      if (e === 'retryable' || e === 'fatal' || e === 'stop-run') throw new ProviderCallError(e, `scripted ${e}`, 500);
      return reply(e);
    },
  };
}

const EVENTS: Event[] = ['good', 'bad-ids', 'prose', 'junk', 'truncated', 'refused', 'retryable', 'fatal', 'stop-run'];

describe('judge engine properties', () => {
  it('never scores a failure; bounded calls; one ledger row per call', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...EVENTS), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 4 }), async (events, maxAttempts) => {
        const judge = parseJudgeConfig({ id: 'p', provider: 'anthropic', model: 'claude-sonnet-5', prompt: 'prompts/rubric-v1.md', params: { max_tokens: 100, temperature: 0, timeout_ms: 1000, max_attempts: maxAttempts } }, 'p');
        const adapter = scripted(events);
        const ledger = new MemoryLedger();
        const engine = createJudgeEngine({ judge, adapter, cache: new MemoryCache(), ledger, sleep: async () => {}, random: mulberry32(1) });
        const o = await engine.grade({ rubric: farmyard, answer: farmyardAnswer });
        const r = buildReport(farmyard, farmyardAnswer, o);
        expect(adapter.calls).toBe(o.calls);
        expect(ledger.entries).toHaveLength(o.calls);
        expect(o.calls).toBeLessThanOrEqual(2 * maxAttempts);
        if (o.status === 'ok') {
          expect(o.output).not.toBeNull();
          expect(r.f1).not.toBeNull();
        } else {
          expect(o.output).toBeNull();
          expect(o.reason).toBeTruthy();
          expect([r.completeness, r.correctness, r.f1, r.items.length, r.claims.length]).toEqual([null, null, null, 0, 0]);
        }
        // The first event decides a lot on its own.
        const first = events[0]!;
        if (first === 'good' || first === 'prose') expect(o.status).toBe('ok');
        if (first === 'truncated') expect(o.status).toBe('truncated');
        if (first === 'refused') expect(o.status).toBe('refused');
        if (first === 'fatal' || first === 'stop-run') expect([o.status, o.calls]).toEqual(['provider_error', 1]);
      }),
      { numRuns: 300 },
    );
  });
});
