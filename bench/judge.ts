// Judge engine economics against the fake provider (test/fake-provider): provider calls and tokens per
// graded answer for a 40-item rubric, cache hits on a re-run, and the share of input tokens in the
// cacheable static prefix. Token counts are the fake's (≈ 4 characters per token), so the ratios are
// about prompt layout, not any real tokenizer. Run: npm run bench -- judge
import type { Rubric } from '../src/domain/rubric.ts';
import { createAdapter } from '../src/judges/adapters/index.ts';
import { parseJudgeConfig } from '../src/judges/config.ts';
import { createJudgeEngine } from '../src/judges/engine.ts';
import { MemoryCache, MemoryLedger } from '../src/judges/store.ts';
import { mulberry32 } from '../src/stats/random.ts';
import { startFakeProvider } from '../test/fake-provider/server.ts';
import { promptSplit, requestItemIds, tokensOf } from '../test/fake-provider/wire.ts';

const ITEMS = 40;
const ANSWERS = 25;
const rubric: Rubric = {
  id: 'bench-40',
  title: 'Forty-item bench rubric',
  reference: Array.from({ length: 40 }, (_, i) => `Detail ${i}: a ${['red', 'blue', 'green', 'yellow'][i % 4]} object number ${i} sits in region ${i % 9} of the picture.`).join(' '),
  items: Array.from({ length: ITEMS }, (_, i) => ({ id: `item-${i}`, weight: 1 + (i % 3), text: `The description mentions object number ${i}, its colour and its region.` })),
};
const rng = mulberry32(42);
const answers = Array.from({ length: ANSWERS }, (_, a) =>
  Array.from({ length: 12 }, () => `Object ${Math.floor(rng() * 40)} is ${['red', 'blue', 'green'][Math.floor(rng() * 3)]} in region ${Math.floor(rng() * 9)}.`).join(' ') + ` (answer ${a})`,
);

const fake = await startFakeProvider({
  script: (call) => ({ kind: 'verdicts', output: { items: requestItemIds(call).map((id) => ({ id, verdict: 'correct', evidence: '' })), claims: [{ text: 'x', verdict: 'true' }] } }),
});

for (const provider of ['anthropic', 'openai'] as const) {
  const judge = parseJudgeConfig(
    { id: `bench-${provider}`, provider, model: provider === 'anthropic' ? 'claude-sonnet-5' : 'gpt-4.1', prompt: 'prompts/rubric-v1.md' },
    'bench judge',
  );
  const adapter = await createAdapter(judge, { anthropicApiKey: 'k', anthropicBaseUrl: fake.url, openaiApiKey: 'k', openaiBaseUrl: fake.openaiBaseUrl });
  const cache = new MemoryCache();
  const ledger = new MemoryLedger();
  const engine = createJudgeEngine({ judge, adapter, cache, ledger, random: mulberry32(1) });

  const callsBefore = fake.calls.length;
  for (const answer of answers) {
    const o = await engine.grade({ rubric, answer });
    if (o.status !== 'ok') throw new Error(`bench grade failed: ${o.status} ${o.reason}`);
  }
  const firstCalls = fake.calls.slice(callsBefore);
  const split = firstCalls.map((c) => promptSplit(c));
  const prefixTokens = split.reduce((s, x) => s + tokensOf(x.prefix), 0);
  const allTokens = split.reduce((s, x) => s + tokensOf(x.prefix) + tokensOf(x.rest), 0);
  const u = ledger.entries.reduce((s, e) => ({ input: s.input + e.usage.input, output: s.output + e.usage.output, cacheRead: s.cacheRead + e.usage.cacheRead, cacheWrite: s.cacheWrite + e.usage.cacheWrite }), { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
  const cost = ledger.entries.reduce((s, e) => s + (e.costUsd ?? 0), 0);

  const hitsBefore = cache.hits;
  const rerunBefore = fake.calls.length;
  for (const answer of answers) await engine.grade({ rubric, answer });
  const rerunCalls = fake.calls.length - rerunBefore;
  const hits = cache.hits - hitsBefore;

  const per = (x: number) => (x / ANSWERS).toFixed(1);
  console.log(`\n${provider} (${judge.config.model}), ${ITEMS}-item rubric, ${ANSWERS} answers`);
  console.log(`  provider calls per graded answer     ${(firstCalls.length / ANSWERS).toFixed(2)}   (target 1)`);
  console.log(`  tokens per answer                    uncached input ${per(u.input)}, cache read ${per(u.cacheRead)}, cache write ${per(u.cacheWrite)}, output ${per(u.output)}`);
  console.log(`  input tokens in the static prefix    ${((100 * prefixTokens) / allTokens).toFixed(1)}%`);
  // Adapters report uncached input separately from cache reads and writes, for both providers.
  const allInput = u.input + u.cacheRead + u.cacheWrite;
  console.log(`  input tokens read from prompt cache  ${((100 * u.cacheRead) / allInput).toFixed(1)}%`);
  console.log(`  cost (judges/prices.yaml defaults)   $${(cost / ANSWERS).toFixed(6)} per answer`);
  console.log(`  re-run: cache hits                   ${hits}/${ANSWERS} (${((100 * hits) / ANSWERS).toFixed(0)}%), provider calls ${rerunCalls}   (target 100%, 0)`);
}
await fake.close();
