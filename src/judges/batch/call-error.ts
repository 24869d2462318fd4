import { OUTSIDE_FAILURE, type OutsideFailure } from '../../domain/errors.ts';
import type { LoadedJudge } from '../config.ts';
import { ProviderCallError } from '../types.ts';
import type { BatchClient } from './types.ts';

/**
 * A provider's error on a batch call (creating, polling, fetching, listing batches), with the provider,
 * what assay was doing and what the user should check. It is a ProviderCallError still (the grader reads
 * its status: a 404 on a recorded batch means the batch is gone), and the CLI prints it as one line, exit 1
 * (src/cli/errors.ts): the provider refused or failed, assay did not; the next run resumes what was created.
 */
export class BatchCallError extends ProviderCallError implements OutsideFailure {
  readonly [OUTSIDE_FAILURE] = true as const;

  constructor(
    cause: ProviderCallError,
    readonly provider: string,
    readonly operation: string,
    readonly hint: string,
  ) {
    super(cause.kind, cause.message, cause.status, cause.retryAfterMs);
    this.name = 'BatchCallError';
  }

  /** One line: provider, status (in the message), operation, what to check. */
  describe(): string {
    return `${this.provider} batch API: ${this.message} while ${this.operation}; ${this.hint}`;
  }
}

const RUN_AGAIN = 'run again later (batches already created are picked up again)';

/** What to check, by HTTP status; no status is a connection error or timeout. */
function hintFor(status: number | undefined, key: string, base: string): string {
  if (status === undefined) return `check ${base} and the network, then ${RUN_AGAIN}`;
  const byStatus: Readonly<Record<number, string>> = {
    401: `check ${key} (the key is refused)`,
    403: `check ${key} and that its account may use the batch API`,
    404: `check the judge's model and ${base}`,
    429: `rate limit or quota reached: check the account's limits, or ${RUN_AGAIN}`,
  };
  return byStatus[status] ?? (status >= 500 ? `the provider failed: ${RUN_AGAIN}` : `check the judge's model and params`);
}

const ENV: Readonly<Record<string, { key: string; base: string }>> = {
  anthropic: { key: 'ANTHROPIC_API_KEY', base: 'ANTHROPIC_BASE_URL' },
  openai: { key: 'OPENAI_API_KEY', base: 'OPENAI_BASE_URL' },
};

/** The client with each call's ProviderCallError made a BatchCallError naming the provider and the call. */
export function namingCalls(client: BatchClient, judge: LoadedJudge): BatchClient {
  const c = judge.config;
  const env = ENV[c.provider] ?? { key: 'the API key', base: 'the base URL' };
  const key = c.apiKeyEnv ?? env.key;
  const base = c.baseUrl ? `the judge's base URL (${c.baseUrl})` : env.base;
  const named = async <T>(operation: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      if (!(e instanceof ProviderCallError) || e instanceof BatchCallError) throw e;
      throw new BatchCallError(e, c.provider, operation, hintFor(e.status, key, base));
    }
  };
  return {
    provider: client.provider,
    keepsIntent: client.keepsIntent,
    create: (items, intent) => named(`creating a batch of ${items.length} requests`, () => client.create(items, intent)),
    ended: (id) => named(`polling batch ${id}`, () => client.ended(id)),
    results: (id) => named(`fetching the results of batch ${id}`, () => client.results(id)),
    list: (since) => named('listing batches', () => client.list(since)),
  };
}
