import { badInput } from '../../domain/errors.ts';
import { type JudgeProvider, type LoadedJudge, resolveJudgeFile } from '../config.ts';
import type { Judge } from '../types.ts';

/**
 * Provider → adapter factory. SDK adapters are imported lazily so offline judges (and CLI commands
 * that never grade) do not load an SDK.
 */

export interface ProviderKeys {
  anthropicApiKey?: string | undefined;
  anthropicBaseUrl?: string | undefined;
  openaiApiKey?: string | undefined;
  openaiBaseUrl?: string | undefined;
  /** Extra environment for `apiKeyEnv` lookups. */
  env?: Record<string, string | undefined>;
}

const keyFrom = (judge: LoadedJudge, keys: ProviderKeys, fallback: string | undefined): string | undefined =>
  judge.config.apiKeyEnv ? (keys.env ?? process.env)[judge.config.apiKeyEnv] : fallback;

const FACTORIES: Readonly<Record<JudgeProvider, (judge: LoadedJudge, keys: ProviderKeys) => Promise<Judge>>> = {
  anthropic: async (judge, keys) => {
    const apiKey = keyFrom(judge, keys, keys.anthropicApiKey);
    if (!apiKey) throw badInput(`judge ${judge.config.id}: needs ${judge.config.apiKeyEnv ?? 'ANTHROPIC_API_KEY'}`);
    const { createAnthropicJudge } = await import('./anthropic.ts');
    const baseURL = judge.config.baseUrl ?? keys.anthropicBaseUrl;
    return createAnthropicJudge({ apiKey, ...(baseURL ? { baseURL } : {}), model: judge.config.model, params: judge.config.params });
  },
  openai: async (judge, keys) => {
    const apiKey = keyFrom(judge, keys, keys.openaiApiKey);
    if (!apiKey) throw badInput(`judge ${judge.config.id}: needs ${judge.config.apiKeyEnv ?? 'OPENAI_API_KEY'}`);
    const { createOpenAIJudge } = await import('./openai.ts');
    const baseURL = judge.config.baseUrl ?? keys.openaiBaseUrl;
    return createOpenAIJudge({ provider: 'openai', apiKey, ...(baseURL ? { baseURL } : {}), model: judge.config.model, params: judge.config.params });
  },
  'openai-compatible': async (judge, keys) => {
    // Local servers usually ignore the key, but the SDK insists on one.
    const apiKey = keyFrom(judge, keys, undefined) ?? 'not-needed';
    const { createOpenAIJudge } = await import('./openai.ts');
    return createOpenAIJudge({ provider: 'openai-compatible', apiKey, baseURL: judge.config.baseUrl!, model: judge.config.model, params: judge.config.params });
  },
  lexical: async (judge) => (await import('./lexical.ts')).createLexicalJudge(judge.config),
  replay: async (judge) => (await import('./replay.ts')).createReplayJudge(judge.config, resolveJudgeFile(judge, judge.config.replay!)),
};

export function createAdapter(judge: LoadedJudge, keys: ProviderKeys): Promise<Judge> {
  return FACTORIES[judge.config.provider](judge, keys);
}

/** Starts loading the SDKs of the providers that have keys, so the first job does not wait for them. */
export function preloadAdapters(keys: ProviderKeys): void {
  const load = (f: () => Promise<unknown>) => void f().catch(() => {});
  if (keys.anthropicApiKey) load(() => import('./anthropic.ts'));
  if (keys.openaiApiKey || keys.openaiBaseUrl) load(() => import('./openai.ts'));
}
