import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAdapter } from '../../src/judges/adapters/index.ts';
import { parseJudgeConfig } from '../../src/judges/config.ts';
import { createJudgeEngine } from '../../src/judges/engine.ts';
import { MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { farmyard, farmyardAnswer, fullVerdicts, harness } from './harness.ts';

/** What goes over the wire: prompt order, cache breakpoints, image blocks, per-provider parameters. */
const PNG = { mediaType: 'image/png' as const, data: Buffer.from('fake png bytes').toString('base64') };
const good = { kind: 'verdicts' as const, output: fullVerdicts() };

describe('request shapes', () => {
  let fake: FakeProvider;
  beforeEach(async () => {
    fake = await startFakeProvider({ script: [good] });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('anthropic: forced tool, static block then image with cache_control, answer last, no SDK retries', async () => {
    const h = await harness('anthropic', fake);
    await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer, image: PNG });
    const b = fake.calls[0]!.body;
    expect(b.tool_choice).toEqual({ type: 'tool', name: 'record_verdicts' });
    expect(b.tools[0].input_schema.properties.items.items.properties.id.enum).toEqual(farmyard.items.map((i) => i.id));
    const content = b.messages[0].content;
    expect(content.map((c: { type: string }) => c.type)).toEqual(['text', 'image', 'text']);
    expect(content[0].text).toContain(farmyard.reference.trim());
    expect(content[0].cache_control).toBeUndefined();
    expect(content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.data }, cache_control: { type: 'ephemeral' } });
    expect(content[2].text).toContain('X-braced');
    expect(JSON.stringify(b.system)).not.toContain('X-braced');
    expect(b.max_tokens).toBe(2000);
    expect(fake.calls[0]!.headers['x-stainless-retry-count'] ?? '0').toBe('0');
  });

  it('openai: strict json_schema, image_url data URL, identical prefix for two answers', async () => {
    fake.setScript([good, good]);
    const h = await harness('openai', fake);
    await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer, image: PNG });
    await h.engine.grade({ rubric: farmyard, answer: 'A different answer about a barn.', image: PNG });
    const [a, b] = fake.calls.map((c) => c.body);
    expect(a.response_format.type).toBe('json_schema');
    expect(a.response_format.json_schema.strict).toBe(true);
    expect(a.max_completion_tokens).toBe(2000);
    expect(a.messages[0].role).toBe('system');
    expect(a.messages[1].content[1]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.data}` } });
    // Everything before the answer part is byte-identical: OpenAI's automatic prefix cache can hit.
    expect(JSON.stringify([a.messages[0], a.messages[1].content.slice(0, 2)])).toBe(JSON.stringify([b.messages[0], b.messages[1].content.slice(0, 2)]));
    expect(a.messages[1].content[2].text).not.toBe(b.messages[1].content[2].text);
  });

  it('openai-compatible: same adapter at the judge baseUrl, max_tokens, a placeholder key', async () => {
    const h = await harness('openai-compatible', fake);
    const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    expect(out.status).toBe('ok');
    expect(fake.calls[0]!.body.max_tokens).toBe(2000);
    expect(fake.calls[0]!.headers.authorization).toBe('Bearer not-needed');
  });

  it('reference-match mode returns a label through both providers', async () => {
    fake.setScript([{ kind: 'verdicts', output: { label: 'pass', rationale: 'all entities right' } }]);
    for (const p of ['anthropic', 'openai'] as const) {
      const h = await harness(p, fake, {}, 'reference-match');
      const out = await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
      expect(out.status).toBe('ok');
      expect(out.output).toEqual({ label: 'pass', rationale: 'all entities right' });
    }
    expect(fake.calls[0]!.body.tools[0].input_schema.required).toEqual(['label', 'rationale']);
  });

  it('records usage and cost per call in the ledger (cache write then cache read)', async () => {
    fake.setScript([good, good]);
    const h = await harness('anthropic', fake);
    await h.engine.grade({ rubric: farmyard, answer: farmyardAnswer });
    await h.engine.grade({ rubric: farmyard, answer: 'Another answer.' });
    const [first, second] = h.ledger.entries;
    expect(first!.usage.cacheWrite).toBeGreaterThan(0);
    expect(first!.usage.cacheRead).toBe(0);
    expect(second!.usage.cacheRead).toBe(first!.usage.cacheWrite);
    const u = first!.usage;
    expect(first!.costUsd).toBeCloseTo((u.input * 2 + u.output * 10 + u.cacheRead * 0.2 + u.cacheWrite * 2.5) / 1e6, 12);
    expect(first!.callKey).not.toBe(second!.callKey);
  });
});

describe('fake provider auth', () => {
  it('accepts x-api-key and Authorization: Bearer, and refuses a request with neither', async () => {
    const fake = await startFakeProvider({ script: [good] });
    const post = (headers: Record<string, string>) =>
      fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ model: 'm', messages: [] }) });
    expect((await post({ 'x-api-key': 'k' })).status).toBe(200);
    expect((await post({ authorization: 'Bearer k' })).status).toBe(200);
    expect((await post({})).status).toBe(401);
    expect(fake.calls).toHaveLength(2);
    await fake.close();
  });
});

describe('replay judge', () => {
  it('replays recorded labels by answer id and fails (never guesses) for an unknown answer', async () => {
    const judge = parseJudgeConfig(
      { id: 'human', provider: 'replay', model: 'human-labels', mode: 'reference-match', replay: `${FIXTURES}judges/replay-labels.jsonl` },
      'replay judge',
    );
    const engine = createJudgeEngine({ judge, adapter: await createAdapter(judge, {}), cache: new MemoryCache(), ledger: new MemoryLedger() });
    expect((await engine.grade({ rubric: farmyard, answer: 'x', answerId: 'a-2' })).output).toEqual({ label: 'fail', rationale: 'human label' });
    const missing = await engine.grade({ rubric: farmyard, answer: 'y', answerId: 'a-9' });
    expect(missing.status).toBe('provider_error');
    expect(missing.reason).toMatch(/no recorded output for answer a-9/);
  });

  it('a file of one row is that row, not one output for every answer; a numeric answer id matches', async () => {
    // Before, a one-line JSONL file parsed as one JSON object and was replayed as the output of every answer.
    const dir = mkdtempSync(join(tmpdir(), 'assay-replay-row-'));
    try {
      const file = join(dir, 'one.jsonl');
      writeFileSync(file, '{"answer": 12, "output": {"label": "pass", "rationale": "human label"}}\n');
      const judge = parseJudgeConfig({ id: 'human', provider: 'replay', model: 'human-labels', mode: 'reference-match', replay: file }, 'replay judge');
      const engine = createJudgeEngine({ judge, adapter: await createAdapter(judge, {}), cache: new MemoryCache(), ledger: new MemoryLedger() });
      expect((await engine.grade({ rubric: farmyard, answer: 'x', answerId: '12' })).output).toEqual({ label: 'pass', rationale: 'human label' });
      const other = await engine.grade({ rubric: farmyard, answer: 'y', answerId: '13' });
      expect(other.status).toBe('provider_error');
      expect(other.reason).toMatch(/no recorded output for answer 13/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
