import type { Rng } from '../stats/random.ts';
import type { CallAccounts } from './call-accounting.ts';
import type { Finish, JudgeOutcome } from './outcome.ts';
import { type BackoffOptions, retryDelayMs } from './retry.ts';
import { ProviderCallError, ZERO_USAGE } from './types.ts';

/**
 * What a failed attempt becomes: its ledger row, then another attempt after the backoff (a retryable
 * failure with attempts left) or the grade's provider_error with the reason.
 */

export interface FailureContext {
  attempt: number;
  maxAttempts: number;
  /** Whether the attempt's pending row was written, i.e. a request was sent (call-gate.ts). */
  begun: boolean;
  leaseLost: boolean;
  lastRaw: string | null;
  latencyMs: () => number;
  accounts: CallAccounts;
  finish: Finish;
  sleep: (ms: number) => Promise<void>;
  rng: Rng;
  backoff: BackoffOptions;
  /** Told a stop-run failure's message: later grades of the engine fail fast with it. */
  stopRun: (message: string) => void;
}

/** 'retry' once the backoff has been slept, else the grade's outcome. */
export async function attemptFailed(e: unknown, c: FailureContext): Promise<'retry' | JudgeOutcome> {
  // An error the adapter did not classify came after the request may have left: its cost is unknown.
  const err = e instanceof ProviderCallError ? e : new ProviderCallError('fatal', `adapter error: ${(e as Error)?.message ?? String(e)}`, undefined, undefined, 'aborted');
  if (c.leaseLost) return c.finish('provider_error', err.message, null, c.lastRaw, { leaseLost: true });
  const kindStatus = { retryable: 'retryable_error', fatal: 'fatal_error', 'stop-run': 'stop_run' }[err.kind];
  // A provider's error reply (HTTP 4xx/5xx) is not billed: 0 tokens. A call that may have been taken
  // and got no reply (a timeout, a lost connection) has unknown usage, never 0.
  if (c.begun) await c.accounts.record(kindStatus, err.usageUnknown ? null : ZERO_USAGE, c.latencyMs(), err.message, err.usageUnknown);
  if (err.kind === 'retryable' && c.attempt < c.maxAttempts) {
    await c.sleep(retryDelayMs(c.attempt, err, c.rng, c.backoff));
    return 'retry';
  }
  if (err.kind === 'stop-run') c.stopRun(err.message);
  const why = err.kind === 'retryable' ? `gave up after ${c.attempt} attempt${c.attempt > 1 ? 's' : ''}: ${err.message}` : err.message;
  return c.finish('provider_error', why, null, c.lastRaw, { stopRun: err.kind === 'stop-run' });
}
