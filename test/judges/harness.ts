import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Rubric } from '../../src/domain/rubric.ts';
import { createAdapter } from '../../src/judges/adapters/index.ts';
import { parseJudgeConfig } from '../../src/judges/config.ts';
import { createJudgeEngine, type JudgeEngine } from '../../src/judges/engine.ts';
import { MemoryCache, MemoryLedger } from '../../src/judges/store.ts';
import { parseRubric } from '../../src/scoring/description/rubric.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import type { FakeProvider } from '../fake-provider/server.ts';
import { FIXTURES } from '../helpers/cli.ts';

export const farmyard: Rubric = parseRubric(parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')), 'farmyard');
export const farmyardAnswer = readFileSync(`${FIXTURES}farmyard.answer.txt`, 'utf8');
export const farmyardVerdicts = JSON.parse(readFileSync(`${FIXTURES}farmyard.verdicts.json`, 'utf8')) as {
  items: Array<{ id: string; verdict: string }>;
  claims: Array<{ text: string; verdict: string }>;
};

/** The fixture in the full judge contract: every item listed (unlisted = missing), evidence present. */
export function fullVerdicts(rubric: Rubric = farmyard, v = farmyardVerdicts): { items: unknown[]; claims: unknown[] } {
  const byId = new Map(v.items.map((i) => [i.id, i.verdict]));
  return {
    items: rubric.items.map((it) => ({ id: it.id, verdict: byId.get(it.id) ?? 'missing', evidence: '' })),
    claims: v.claims.map((c) => ({ text: c.text, verdict: c.verdict })),
  };
}

export const PROVIDERS = ['anthropic', 'openai'] as const;
export type TestProvider = (typeof PROVIDERS)[number];

export interface Harness {
  engine: JudgeEngine;
  cache: MemoryCache;
  ledger: MemoryLedger;
  sleeps: number[];
}

export async function harness(provider: TestProvider | 'openai-compatible', fake: FakeProvider, params: Record<string, number> = {}, mode = 'rubric'): Promise<Harness> {
  const judge = parseJudgeConfig(
    {
      id: `test-${provider}`,
      provider,
      model: provider === 'anthropic' ? 'claude-sonnet-5' : 'gpt-4.1',
      mode,
      prompt: mode === 'rubric' ? 'prompts/rubric-v1.md' : 'prompts/reference-match-v1.md',
      ...(provider === 'openai-compatible' ? { baseUrl: fake.openaiBaseUrl } : {}),
      params: { max_tokens: 2000, temperature: 0, timeout_ms: 10_000, max_attempts: 3, ...params },
    },
    'test judge',
  );
  const adapter = await createAdapter(judge, { anthropicApiKey: 'sk-ant-test', anthropicBaseUrl: fake.url, openaiApiKey: 'sk-test', openaiBaseUrl: fake.openaiBaseUrl });
  const cache = new MemoryCache();
  const ledger = new MemoryLedger();
  const sleeps: number[] = [];
  const engine = createJudgeEngine({ judge, adapter, cache, ledger, sleep: async (ms) => void sleeps.push(ms), random: mulberry32(7) });
  return { engine, cache, ledger, sleeps };
}
