import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { anthropicResponse, openaiResponse } from '../fake-provider/wire.ts';
import { farmyard, farmyardAnswer, fullVerdicts, harness, PROVIDERS } from './harness.ts';

/**
 * Calls whose tokens nobody knows, through the real SDKs against the fake provider (docs/data-safety.md,
 * "Calls of unknown cost"): a call that times out after it was sent and a reply without a usage block were
 * settled as 0 tokens, $0 — the provider most likely billed both. They are now calls of unknown cost: the
 * ledger entry says why (usageUnknown), its cost is null, the grade's cost is null and it counts them.
 * A provider's error reply and a connection refused before anything was sent stay known calls at $0.
 */
const good = () => ({ kind: 'verdicts' as const, output: fullVerdicts() });

describe.each(PROVIDERS)('calls of unknown usage through the %s SDK', (provider) => {
  let fake: FakeProvider;
  beforeEach(async () => {
    fake = await startFakeProvider({
      script: [good()],
      // Each route drops the usage block of a 200 reply while `withoutUsage` is set.
      routes: {
        'POST /v1/messages': (call, step, c) => dropUsage(anthropicResponse(step(), call, c.cache)),
        'POST /v1/chat/completions': (call, step, c) => dropUsage(openaiResponse(step(), call, c.cache)),
      },
    });
  });
  afterEach(async () => {
    await fake.close();
  });
  let withoutUsage = false;
  const dropUsage = <T extends { status: number; body?: unknown }>(r: T): T => {
    if (withoutUsage && r.status === 200) delete (r.body as { usage?: unknown }).usage;
    return r;
  };
  afterEach(() => {
    withoutUsage = false;
  });

  it('a reply without usage: ok verdicts, the call counted, its tokens and cost unknown (not 0, $0)', async () => {
    withoutUsage = true;
    const h = await harness(provider, fake);
    const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    expect(out.status).toBe('ok');
    expect({ calls: out.calls, unknown: out.unknownCostCalls, cost: out.costUsd }).toEqual({ calls: 1, unknown: 1, cost: null });
    expect(h.ledger.entries.map((e) => [e.status, e.usageUnknown, e.costUsd])).toEqual([['ok', 'no_usage', null]]);
  });

  it('a call that times out after it was sent: its cost is unknown; the answered retry is priced', async () => {
    fake.setScript([{ kind: 'hang' }, good()]);
    const h = await harness(provider, fake, { max_attempts: 2, timeout_ms: 300 });
    const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    expect(out.status).toBe('ok');
    expect(fake.calls).toHaveLength(2);
    const entries = h.ledger.entries.map((e) => [e.status, e.usageUnknown ?? null, e.costUsd === null ? null : e.costUsd > 0]);
    expect(entries).toEqual([
      ['retryable_error', 'timeout', null],
      ['ok', null, true],
    ]);
    expect({ calls: out.calls, unknown: out.unknownCostCalls, cost: out.costUsd }).toEqual({ calls: 2, unknown: 1, cost: null });
  });

  it('an HTTP 500 reply is a known call at $0 (the provider answered; nothing billed)', async () => {
    fake.setScript([{ kind: 'status', status: 500 }, good()]);
    const h = await harness(provider, fake);
    const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    expect(h.ledger.entries.map((e) => [e.status, e.usageUnknown ?? null, e.costUsd])).toEqual([
      ['retryable_error', null, 0],
      ['ok', null, out.costUsd],
    ]);
    expect(out.unknownCostCalls).toBe(0);
    expect(out.costUsd).toBeGreaterThan(0);
  });

  it('a connection refused before the request left is a known call at $0', async () => {
    // A port that was just free and is closed again: connect() is refused, nothing is sent.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const closed = { ...fake, url: `http://127.0.0.1:${port}`, openaiBaseUrl: `http://127.0.0.1:${port}/v1` };
    const h = await harness(provider, closed, { max_attempts: 1 });
    const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    expect(out.status).toBe('provider_error');
    expect(h.ledger.entries.map((e) => [e.status, e.usageUnknown ?? null, e.costUsd])).toEqual([['retryable_error', null, 0]]);
    expect(out.unknownCostCalls).toBe(0);
  });
});
