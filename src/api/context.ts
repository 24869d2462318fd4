import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { GradingQueue } from '../services/grading/queue.ts';
import type { VerifiedKey } from '../services/keys.ts';

/** The authenticated caller, set by the guard on every non-public route. */
export type Caller = VerifiedKey;

export interface AppEnv {
  /** publicOrigin: ASSAY_PUBLIC_ORIGIN when configured (set by the host check), for the same-origin rule. */
  Variables: { caller: Caller; publicOrigin?: string };
}

/** Resolves a presented bearer token to its key, or null when unknown or revoked. */
export type KeyVerifier = (token: string) => Promise<Caller | null>;

export interface AppDeps {
  database: Database;
  config: Pick<Config, 'bodyLimitBytes' | 'rateLimitPerMinute'> & Partial<Config>;
  /** Defaults to the api_keys table (services/keys.ts). */
  verifyKey?: KeyVerifier;
  /** Server-side log lines (internal errors); never receives headers. Defaults to stderr. */
  log?: (line: string) => void;
  /** Clock for the rate limiter (ms). */
  now?: () => number;
  /** The grading queue the /api/runs and /api/jobs routes use, owned (and stopped) by the composition root. */
  queue?: GradingQueue;
}
