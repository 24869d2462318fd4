import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbResponseCache } from '../../src/db/judge-store.ts';
import { grades, usageLedger } from '../../src/db/schema.ts';
import { parseJudgeConfig } from '../../src/judges/config.ts';
import { type CallGate, createJudgeEngine } from '../../src/judges/engine.ts';
import { type CachedResponse, type JobLease, type LedgerEntry, MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import type { Judge, JudgeReply } from '../../src/judges/types.ts';
import { createGradingSession } from '../../src/services/grading/session.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { eq } from 'drizzle-orm';
import { farmyard, farmyardAnswer, fullVerdicts } from './harness.ts';

/**
 * Cache entries written before the reply rules got stricter (two different objects, a key twice, a reply
 * ending inside its object, the verdict tool called twice) hold verdicts today's parser refuses. A hit on
 * one must not be served as an ok grade: it is a miss, asked afresh under today's rules, and the stale
 * entry is neither an ok grade nor a paid call.
 */
type Out = { items: Array<{ id: string; verdict: string; evidence: string }>; claims: Array<{ text: string; verdict: string }> };
const full = () => fullVerdicts() as Out;
const barnIncorrect = (): Out => {
  const v = full();
  v.items[0]!.verdict = 'incorrect';
  return v;
};
const usage = { input: 900, output: 120, cacheRead: 0, cacheWrite: 0 };
const twoObjects = `Draft:\n${JSON.stringify(full())}\nOn reflection the barn is wrong:\n${JSON.stringify(barnIncorrect())}`;
/** An entry as the parser before the stricter rules stored it: the first object taken, no rules version. */
const legacy = (raw: string, output: Out = full()): CachedResponse => ({ output, raw, stop: 'complete', usage, calls: 1, model: 'claude-sonnet-5', promptHash: 'p' }) as CachedResponse;

const judge = parseJudgeConfig(
  { id: 'stale', provider: 'anthropic', model: 'claude-sonnet-5', mode: 'rubric', prompt: 'prompts/rubric-v1.md', params: { max_tokens: 2000, temperature: 0, timeout_ms: 10_000, max_attempts: 2 } },
  'test judge',
);

/** The DB ledger's combined lookup, over a MemoryCache: the cache read and the pending row in one step. */
class CombinedLedger extends MemoryLedger {
  constructor(private readonly cache: MemoryCache) {
    super();
  }
  async beginUnlessCached(key: string, entry: LedgerEntry, _lease?: JobLease): Promise<{ hit: CachedResponse } | { begun: boolean }> {
    const hit = await this.cache.get(key);
    return hit ? { hit } : { begun: await this.begin(entry) };
  }
}

describe.each(['plain', 'combined'] as const)('a stale cache entry, %s lookup', (path) => {
  const setup = (replies: JudgeReply[]) => {
    const cache = new MemoryCache();
    const ledger = path === 'plain' ? new MemoryLedger() : new CombinedLedger(cache);
    const sent: number[] = [];
    const adapter: Judge = { provider: 'anthropic', model: 'claude-sonnet-5', baseline: false, call: async () => (sent.push(1), replies[Math.min(sent.length - 1, replies.length - 1)]!) };
    let gated = 0;
    // The call gate (call slot, rate limit) the worker puts around each call; the combined lookup runs inside it.
    const gate: CallGate = (_req, send) => (gated++, send());
    const engine = createJudgeEngine({ judge, adapter, cache, ledger, gate, sleep: async () => {}, random: mulberry32(1) });
    return { engine, cache, ledger, sent, gated: () => gated };
  };
  const input = { rubric: farmyard, answer: farmyardAnswer, answerId: '7' };
  const keyOf = (e: ReturnType<typeof setup>) => e.engine.grade(input).then((o) => o.cacheKey);

  it('an ambiguous reply cached before the stricter rules is not an ok grade: asked again, parse_failure', async () => {
    const e = setup([{ text: twoObjects, stop: 'complete', usage }]);
    const key = await keyOf(setup([{ text: JSON.stringify(full()), stop: 'complete', usage }]));
    e.cache.entries.set(key, legacy(twoObjects));
    const out = await e.engine.grade(input);
    expect(out.status).toBe('parse_failure');
    expect(out.output).toBeNull();
    expect(out.cached).toBe(false);
    expect(out.reason).toBe('invalid output after one re-ask: the reply holds 2 different JSON objects; give exactly one');
    // Two calls, each one pass of the gate: the stale hit took no extra pass and no ledger row of its own.
    expect([out.calls, e.sent.length, e.gated()]).toEqual([2, 2, 2]);
    expect(e.ledger.entries.map((x) => x.status)).toEqual(['invalid_output', 'invalid_output']);
  });

  it('a legacy entry that re-parses cleanly (an Anthropic double tool call kept only the first input) is a miss too; the fresh verdict replaces it', async () => {
    const e = setup([{ structured: barnIncorrect(), text: JSON.stringify(barnIncorrect()), stop: 'complete', usage }]);
    const key = await keyOf(e);
    e.cache.entries.set(key, legacy(JSON.stringify(full())));
    e.ledger.entries.length = 0;
    e.sent.length = 0;
    const out = await e.engine.grade(input);
    expect([out.status, out.cached, out.calls, e.sent.length]).toEqual(['ok', false, 1, 1]);
    expect(out.output).toEqual(barnIncorrect());
    expect(e.ledger.entries.map((x) => x.status)).toEqual(['ok']);
    expect(e.cache.entries.get(key)!.output).toEqual(barnIncorrect());
    // Now current: the next grade is a hit, no call and no ledger row.
    const again = await e.engine.grade(input);
    expect([again.status, again.cached, again.calls, e.sent.length, e.ledger.entries.length]).toEqual(['ok', true, 0, 1, 1]);
    expect(again.output).toEqual(barnIncorrect());
  });
});

describeDb('a stale cache entry in the database', (ctx) => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider();
  });
  afterAll(async () => {
    await fake.close();
  });
  const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl });

  it('the cache write replaces an entry under older rules only (otherwise the first writer keeps the key)', async () => {
    const cache = dbResponseCache(ctx.database);
    const current = (raw: string): CachedResponse => ({ ...legacy(raw), replyRules: 2 });
    await ctx.database.execute(`insert into judge_cache (key, response) values ('sc-1', $1::jsonb)`, [JSON.stringify(legacy('old'))]);
    await cache.set('sc-1', current('new'));
    expect((await cache.get('sc-1'))!.raw).toBe('new');
    await cache.set('sc-1', current('second writer'));
    await cache.set('sc-1', legacy('older build'));
    expect((await cache.get('sc-1'))!).toEqual(current('new'));
  });

  it.each(['anthropic', 'openai'] as const)('%s: a cached two-object reply from before the rules is re-asked (a parse_failure, kept beside the ok grade as its last attempt), and a fresh ok replaces it', async (provider) => {
    const j = parseJudgeConfig(
      { id: `stale-${provider}`, provider, model: provider === 'anthropic' ? 'claude-sonnet-5' : 'gpt-4.1', prompt: 'prompts/rubric-v1.md', params: { max_tokens: 2000, temperature: 0, timeout_ms: 10_000, max_attempts: 2 } },
      'stale judge',
    );
    const session = await createGradingSession(ctx.database, { judge: j, keys: keys(), engine: { sleep: async () => {}, random: mulberry32(3) } });
    fake.setScript([{ kind: 'text', text: JSON.stringify(full()) }]);
    const first = await session.grade({ rubric: farmyard, answer: { text: `${farmyardAnswer}\n(stale ${provider})`, run: 'stale-cache' } });
    expect(first.status).toBe('ok');
    const [row] = (await ctx.database.execute(`select key from judge_cache where response->>'raw' = $1 and response->>'model' = $2`, [JSON.stringify(full()), j.config.model])).rows;
    // As an older version stored it: the first of the two objects taken, and no rules version.
    await ctx.database.execute(`update judge_cache set response = $2::jsonb where key = $1`, [row!.key, JSON.stringify({ ...legacy(twoObjects), model: j.config.model })]);

    fake.setScript([{ kind: 'text', text: twoObjects }]);
    const before = fake.calls.length;
    const stale = await session.grade({ rubric: { slug: 'farmyard-54' }, answer: { id: first.answerId } });
    expect(fake.calls.length - before).toBe(2);
    // The re-ask fails under the new rules; the stored ok grade stays (c724a13) and says so in meta.lastAttempt.
    expect([stale.gradeId, stale.status, stale.f1]).toEqual([first.gradeId, 'ok', first.f1]);
    expect(stale.meta.lastAttempt).toMatchObject({ status: 'parse_failure' });
    const [g] = await ctx.database.db.select().from(grades).where(eq(grades.id, stale.gradeId));
    expect([g!.status, g!.f1, (g!.meta as { lastAttempt?: { status: string } }).lastAttempt?.status]).toEqual(['ok', first.f1, 'parse_failure']);
    const ledger = async () => (await ctx.database.db.select().from(usageLedger).where(eq(usageLedger.answerId, first.answerId)).orderBy(usageLedger.id)).map((l) => l.status);
    expect(await ledger()).toEqual(['ok', 'invalid_output', 'invalid_output']);

    // A fresh ok reply replaces the stale entry (the content-addressed insert used to keep the old one).
    fake.setScript([{ kind: 'text', text: JSON.stringify(barnIncorrect()) }]);
    const fresh = await session.grade({ rubric: { slug: 'farmyard-54' }, answer: { id: first.answerId } });
    expect([fresh.status, fake.calls.length - before]).toEqual(['ok', 3]);
    expect(fresh.items[0]!.verdict).toBe('incorrect');
    const stored = (await ctx.database.execute(`select response from judge_cache where key = $1`, [row!.key])).rows[0]!.response as Record<string, unknown>;
    expect(typeof stored.replyRules).toBe('number');
    const hit = await session.grade({ rubric: { slug: 'farmyard-54' }, answer: { id: first.answerId } });
    expect([hit.status, hit.usage.cached, hit.usage.calls, fake.calls.length - before]).toEqual(['ok', true, 0, 3]);
    expect(hit.items[0]!.verdict).toBe('incorrect');
    expect(await ledger()).toEqual(['ok', 'invalid_output', 'invalid_output', 'ok']);
  });
});
