import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { farmyard, farmyardAnswer, fullVerdicts, harness, PROVIDERS } from './harness.ts';

/**
 * Every fault of issue 5 §4, through the real SDKs against the fake server: call counts, the outcome
 * status, and that a failed grade never carries verdicts.
 */
const good = () => ({ kind: 'verdicts' as const, output: fullVerdicts() });

describe.each(PROVIDERS)('judge faults through the %s SDK', (provider) => {
  let fake: FakeProvider;
  beforeEach(async () => {
    fake = await startFakeProvider();
  });
  afterEach(async () => {
    await fake.close();
  });
  const grade = async (params: Record<string, number> = {}) => {
    const h = await harness(provider, fake, params);
    const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    return { ...h, out };
  };

  it('returns the scripted verdicts from one call, sending a key the fake accepts', async () => {
    fake.setScript([good()]);
    const { out, ledger } = await grade();
    expect(out.status).toBe('ok');
    expect(out.calls).toBe(1);
    expect(fake.calls).toHaveLength(1);
    expect(out.output).toEqual(fullVerdicts());
    expect(ledger.entries.map((e) => e.status)).toEqual(['ok']);
    const h = fake.calls[0]!.headers;
    expect(Boolean(h['x-api-key']) || /^Bearer /.test(String(h.authorization))).toBe(true);
    expect(fake.calls[0]!.path).toBe(provider === 'anthropic' ? '/v1/messages' : '/v1/chat/completions');
  });

  it('retries a 429, honouring retry-after-ms, then succeeds', async () => {
    fake.setScript([{ kind: 'status', status: 429, headers: { 'retry-after-ms': '250' } }, good()]);
    const { out, sleeps } = await grade();
    expect(out.status).toBe('ok');
    expect(fake.calls).toHaveLength(2);
    expect(sleeps).toEqual([250]);
  });

  it('honours retry-after in seconds', async () => {
    fake.setScript([{ kind: 'status', status: 429, headers: { 'retry-after': '2' } }, good()]);
    const { out, sleeps } = await grade();
    expect(out.status).toBe('ok');
    expect(sleeps).toEqual([2000]);
  });

  it('retries 500 and 529 with jittered backoff under the cap', async () => {
    fake.setScript([{ kind: 'status', status: 500 }, { kind: 'status', status: 529 }, good()]);
    const { out, sleeps } = await grade();
    expect(out.status).toBe('ok');
    expect(fake.calls).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]!).toBeGreaterThanOrEqual(0);
    expect(sleeps[0]!).toBeLessThanOrEqual(500);
    expect(sleeps[1]!).toBeLessThanOrEqual(1000);
  });

  it('gives up after max_attempts server errors: provider_error, no scores', async () => {
    fake.setScript([{ kind: 'status', status: 503 }]);
    const { out, ledger } = await grade({ max_attempts: 3 });
    expect(out.status).toBe('provider_error');
    expect(out.reason).toMatch(/gave up after 3 attempts: HTTP 503/);
    expect(out.output).toBeNull();
    expect(fake.calls).toHaveLength(3);
    expect(ledger.entries).toHaveLength(3);
  });

  it('times out a hanging server on every attempt', async () => {
    fake.setScript([{ kind: 'hang' }]);
    const { out } = await grade({ max_attempts: 2, timeout_ms: 300 });
    expect(out.status).toBe('provider_error');
    expect(out.reason).toMatch(/timeout|timed out/i);
    expect(fake.calls).toHaveLength(2);
  });

  it.each([400, 404, 413])('never retries HTTP %i', async (status) => {
    fake.setScript([{ kind: 'status', status }, good()]);
    const { out } = await grade();
    expect(out.status).toBe('provider_error');
    expect(out.reason).toContain(`HTTP ${status}`);
    expect(fake.calls).toHaveLength(1);
  });

  it('stops the run on 401: later answers make no call', async () => {
    fake.setScript([{ kind: 'status', status: 401, type: 'authentication_error' }, good()]);
    const h = await harness(provider, fake);
    const first = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    const second = await h.engine.grade({ rubric: farmyard, answer: 'another answer' });
    expect(first.status).toBe('provider_error');
    expect(first.stopRun).toBe(true);
    expect(second.status).toBe('provider_error');
    expect(second.reason).toMatch(/^run stopped: HTTP 401/);
    expect(fake.calls).toHaveLength(1);
  });

  it('stops the run on a quota-exhausted 429 without retrying', async () => {
    fake.setScript([
      { kind: 'status', status: 429, code: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details.' },
      good(),
    ]);
    const { out } = await grade();
    expect(out.status).toBe('provider_error');
    expect(out.stopRun).toBe(true);
    expect(out.reason).toMatch(/quota exhausted/);
    expect(fake.calls).toHaveLength(1);
  });

  it('marks a max_tokens / length stop as truncated, one call, no scores', async () => {
    fake.setScript([{ kind: 'truncated', text: '{"items":[{"id":"barn","verdict":"corr' }]);
    const { out } = await grade();
    expect(out.status).toBe('truncated');
    expect(out.reason).toMatch(/max_tokens=2000/);
    expect(out.output).toBeNull();
    expect(fake.calls).toHaveLength(1);
  });

  it('marks a refusal as refused, one call, no scores', async () => {
    fake.setScript([{ kind: 'refusal', text: 'I cannot grade this.' }]);
    const { out } = await grade();
    expect(out.status).toBe('refused');
    expect(out.output).toBeNull();
    expect(fake.calls).toHaveLength(1);
  });

  it('takes JSON out of prose around it', async () => {
    const json = JSON.stringify(fullVerdicts());
    fake.setScript([{ kind: 'text', text: `Here are my verdicts:\n\`\`\`json\n${json}\n\`\`\`\nHope this helps.` }]);
    const { out } = await grade();
    expect(out.status).toBe('ok');
    expect(out.output).toEqual(fullVerdicts());
    expect(fake.calls).toHaveLength(1);
  });

  it('repairs near-JSON (trailing commas, single quotes)', async () => {
    const json = JSON.stringify(fullVerdicts()).replace(/"(barn|fence)"/g, "'$1'").replace(/\]\}$/, ',]}');
    fake.setScript([{ kind: 'text', text: json }]);
    const { out } = await grade();
    expect(out.status).toBe('ok');
    expect(out.output).toEqual(fullVerdicts());
  });

  it('re-asks once with the error on unknown item ids, then accepts the fix', async () => {
    const bad = fullVerdicts();
    (bad.items[0] as { id: string }).id = 'barnyard';
    fake.setScript([{ kind: 'verdicts', output: bad }, good()]);
    const { out } = await grade();
    expect(out.status).toBe('ok');
    expect(fake.calls).toHaveLength(2);
    expect(JSON.stringify(fake.calls[1]!.body.messages)).toContain("unknown item id 'barnyard'");
  });

  it('fails with parse_failure when the re-ask is wrong too (missing item)', async () => {
    const bad = fullVerdicts();
    bad.items.pop();
    fake.setScript([{ kind: 'verdicts', output: bad }]);
    const { out } = await grade();
    expect(out.status).toBe('parse_failure');
    expect(out.reason).toMatch(/after one re-ask: missing item 'style'/);
    expect(out.output).toBeNull();
    expect(fake.calls).toHaveLength(2);
  });

  it('re-asks on a malformed claim', async () => {
    const bad = fullVerdicts();
    bad.claims.push({ text: 'x', verdict: 'maybe' });
    fake.setScript([{ kind: 'verdicts', output: bad }, { kind: 'verdicts', output: bad }]);
    const { out } = await grade();
    expect(out.status).toBe('parse_failure');
    expect(out.reason).toMatch(/claims\.14\.verdict/);
    expect(fake.calls).toHaveLength(2);
  });

  it('an echo of the answer is not a verdict: parse_failure after the re-ask', async () => {
    fake.setScript([{ kind: 'echo' }]);
    const { out } = await grade();
    expect(out.status).toBe('parse_failure');
    expect(fake.calls).toHaveLength(2);
  });

  it('serves a re-run from the cache with zero calls and the same verdicts', async () => {
    fake.setScript([good()]);
    const h = await harness(provider, fake);
    const a = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    const b = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    expect(fake.calls).toHaveLength(1);
    expect(b.cached).toBe(true);
    expect(b.calls).toBe(0);
    expect(b.output).toEqual(a.output);
    expect(b.cacheKey).toBe(a.cacheKey);
  });

  it('does not cache failures: a re-run after a failure calls again', async () => {
    fake.setScript([{ kind: 'status', status: 400 }, good()]);
    const h = await harness(provider, fake);
    expect((await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer })).status).toBe('provider_error');
    expect((await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer })).status).toBe('ok');
    expect(fake.calls).toHaveLength(2);
  });
});
