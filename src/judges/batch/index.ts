import { badInput } from '../../domain/errors.ts';
import { endpointOf, type ProviderKeys } from '../adapters/index.ts';
import type { JudgeProvider, LoadedJudge } from '../config.ts';
import { namingCalls } from './call-error.ts';
import type { BatchClient } from './types.ts';

/**
 * Provider → batch API client, beside the live adapters' table (adapters/index.ts), whose endpoints
 * (key, base URL) it shares. SDK clients are imported lazily, as the adapters are.
 */
const BATCH_CLIENTS: Readonly<Partial<Record<JudgeProvider, (judge: LoadedJudge, keys: ProviderKeys) => Promise<BatchClient>>>> = {
  anthropic: async (judge, keys) =>
    (await import('./anthropic.ts')).createAnthropicBatchClient({ ...endpointOf(judge, keys), model: judge.config.model, params: judge.config.params }),
  openai: async (judge, keys) => (await import('./openai.ts')).createOpenAIBatchClient({ ...endpointOf(judge, keys), model: judge.config.model, params: judge.config.params }),
};

export const BATCH_PROVIDERS = Object.keys(BATCH_CLIENTS) as JudgeProvider[];

/** Only providers with a batch API; checked before anything is opened or written. */
export function assertBatchJudge(judge: LoadedJudge): void {
  const c = judge.config;
  if (!BATCH_CLIENTS[c.provider]) throw badInput(`--batch: judge ${c.id} uses provider ${c.provider}; batch APIs exist for ${BATCH_PROVIDERS.join(' and ')} only`);
}

/** A provider's error on any of its calls names the provider, the call and what to check (call-error.ts). */
export async function createBatchClient(judge: LoadedJudge, keys: ProviderKeys): Promise<BatchClient> {
  assertBatchJudge(judge);
  return namingCalls(await BATCH_CLIENTS[judge.config.provider]!(judge, keys), judge);
}
