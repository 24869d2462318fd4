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

/** Where a provider's requests go, and with which key. */
export interface Endpoint {
  apiKey: string;
  baseURL?: string;
}

const needKey = (judge: LoadedJudge, apiKey: string | undefined, variable: string): string => {
  if (!apiKey) throw badInput(`judge ${judge.config.id}: needs ${judge.config.apiKeyEnv ?? variable}`);
  return apiKey;
};
const withBase = (apiKey: string, baseURL: string | undefined): Endpoint => ({ apiKey, ...(baseURL ? { baseURL } : {}) });

/**
 * The endpoint of each remote provider, shared by the live adapters below and the batch clients
 * (judges/batch/index.ts): a missing key is bad input naming the variable to set.
 */
const ENDPOINTS: Readonly<Partial<Record<JudgeProvider, (judge: LoadedJudge, keys: ProviderKeys) => Endpoint>>> = {
  anthropic: (judge, keys) => withBase(needKey(judge, keyFrom(judge, keys, keys.anthropicApiKey), 'ANTHROPIC_API_KEY'), judge.config.baseUrl ?? keys.anthropicBaseUrl),
  openai: (judge, keys) => withBase(needKey(judge, keyFrom(judge, keys, keys.openaiApiKey), 'OPENAI_API_KEY'), judge.config.baseUrl ?? keys.openaiBaseUrl),
  // Local servers usually ignore the key, but the SDK insists on one.
  'openai-compatible': (judge, keys) => withBase(keyFrom(judge, keys, undefined) ?? 'not-needed', judge.config.baseUrl!),
};

export function endpointOf(judge: LoadedJudge, keys: ProviderKeys): Endpoint {
  const endpoint = ENDPOINTS[judge.config.provider];
  if (!endpoint) throw badInput(`judge ${judge.config.id}: provider ${judge.config.provider} calls no remote endpoint`);
  return endpoint(judge, keys);
}

const FACTORIES: Readonly<Record<JudgeProvider, (judge: LoadedJudge, keys: ProviderKeys) => Promise<Judge>>> = {
  anthropic: async (judge, keys) => {
    const e = endpointOf(judge, keys);
    const { createAnthropicJudge } = await import('./anthropic.ts');
    return createAnthropicJudge({ ...e, model: judge.config.model, params: judge.config.params });
  },
  openai: async (judge, keys) => {
    const e = endpointOf(judge, keys);
    const { createOpenAIJudge } = await import('./openai.ts');
    return createOpenAIJudge({ provider: 'openai', ...e, model: judge.config.model, params: judge.config.params });
  },
  'openai-compatible': async (judge, keys) => {
    const e = endpointOf(judge, keys);
    const { createOpenAIJudge } = await import('./openai.ts');
    return createOpenAIJudge({ provider: 'openai-compatible', apiKey: e.apiKey, baseURL: e.baseURL!, model: judge.config.model, params: judge.config.params });
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
