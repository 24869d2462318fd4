import type { Rng } from '../stats/random.ts';
import { type FailureKind, ProviderCallError } from './types.ts';

/**
 * Retry policy (issue 5 §4). SDK retries are switched off (maxRetries: 0) so this is the only policy
 * and every provider call is counted. Retry: connection errors and timeouts, 408, 409, 429, 5xx, 529.
 * Never: other 4xx. A 429 that says the quota or credit is exhausted stops the run: waiting will not
 * help, and every later call would fail the same way.
 */

const QUOTA = /insufficient_quota|quota|billing|credit balance|spend limit|spend_limit/i;

// Status → kind; statuses not listed fall back by class (5xx retryable, other 4xx fatal).
const BY_STATUS: Readonly<Record<number, FailureKind>> = {
  400: 'fatal',
  401: 'stop-run',
  402: 'stop-run',
  403: 'stop-run',
  404: 'stop-run',
  408: 'retryable',
  409: 'retryable',
  413: 'fatal',
  422: 'fatal',
  429: 'retryable',
  529: 'retryable',
};

export interface HttpFailure {
  status?: number;
  headers?: Headers | Record<string, string | null | undefined>;
  /** Provider error code/type/message text, searched for quota exhaustion. */
  detail?: string;
  connection?: boolean;
  timeout?: boolean;
  /** The SDK error's cause (a connection error): its code tells a request that never left from one cut off. */
  cause?: unknown;
  /** An error the SDK did not classify: whether the request reached the provider is not known. */
  unclassified?: boolean;
}

// Codes of a connection that failed before the request was written (name lookup, connect, TLS handshake):
// nothing reached the provider, so nothing can be billed. Any other connection error may follow the request.
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_INVALID_URL', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID']);

/** True when an error's cause chain names a failure before the request left (NEVER_SENT). */
export function neverSent(cause: unknown): boolean {
  for (let c = cause, depth = 0; c && typeof c === 'object' && depth < 8; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && NEVER_SENT.has(code)) return true;
    const errors = (c as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0 && errors.every((x) => neverSent(x))) return true;
  }
  return false;
}

function header(h: HttpFailure['headers'], name: string): string | undefined {
  if (!h) return undefined;
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name) ?? undefined;
  const rec = h as Record<string, string | null | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  return key ? (rec[key] ?? undefined) : undefined;
}

/** retry-after-ms (milliseconds) wins over retry-after (seconds or an HTTP date). */
export function retryAfterMs(h: HttpFailure['headers'], now: number = Date.now()): number | undefined {
  const ms = Number(header(h, 'retry-after-ms'));
  if (header(h, 'retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = header(h, 'retry-after');
  if (ra === undefined) return undefined;
  const s = Number(ra);
  if (ra.trim() !== '' && Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(ra);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

export function classifyFailure(f: HttpFailure, message: string): ProviderCallError {
  // A timeout or a lost connection may come after the provider took the request (and billed it): its
  // usage is unknown, never 0 (docs/data-safety.md, "Calls of unknown cost").
  if (f.timeout) return new ProviderCallError('retryable', `timeout: ${message}`, undefined, undefined, 'timeout');
  if (f.unclassified) return new ProviderCallError('fatal', message, undefined, undefined, 'aborted');
  if (f.connection || f.status === undefined) return new ProviderCallError('retryable', `connection error: ${message}`, undefined, undefined, neverSent(f.cause) ? undefined : 'aborted');
  const s = f.status;
  if (s === 429 && QUOTA.test(`${f.detail ?? ''} ${message}`)) {
    return new ProviderCallError('stop-run', `quota exhausted (HTTP 429): ${message}`, s);
  }
  const kind = BY_STATUS[s] ?? (s >= 500 ? 'retryable' : 'fatal');
  return new ProviderCallError(kind, `HTTP ${s}: ${message}`, s, kind === 'retryable' ? retryAfterMs(f.headers) : undefined);
}

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
  /** Longest server-requested wait we honour; longer requests are clamped (and the wait reported). */
  maxRetryAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 20_000, maxRetryAfterMs: 60_000 };

/**
 * Delay before retry number `retry` (1-based): the server's retry-after when given, else "full jitter"
 * exponential backoff, uniform in [0, min(cap, base·2^(retry−1))], drawn from the seeded generator.
 */
export function retryDelayMs(retry: number, err: ProviderCallError, rng: Rng, o: BackoffOptions = DEFAULT_BACKOFF): number {
  if (err.retryAfterMs !== undefined) return Math.min(err.retryAfterMs, o.maxRetryAfterMs);
  const ceiling = Math.min(o.capMs, o.baseMs * 2 ** (retry - 1));
  return Math.round(rng() * ceiling);
}
