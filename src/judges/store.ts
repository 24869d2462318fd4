import type { JudgeOutput } from './contract.ts';
import type { StopKind, TokenUsage, UsageUnknownReason } from './types.ts';

/**
 * The engine's two side effects, as interfaces: src/db/judge-store.ts implements them over the
 * judge_cache and usage_ledger tables; the in-memory versions serve tests and one-off CLI runs.
 */

/** What a cache hit returns: enough to rebuild the grade exactly, with no provider call. */
export interface CachedResponse {
  output: JudgeOutput;
  raw: string;
  stop: StopKind;
  /** Tokens of the calls that produced it (for the record; a hit itself costs nothing). */
  usage: TokenUsage;
  calls: number;
  model: string;
  promptHash: string;
  /** Item id → probability of its verdict (token log-probabilities), when the reply had them; a hit carries it like the verdicts. */
  confidence?: Record<string, number>;
  /**
   * The reply rules version the reply passed (reply-rules.ts); absent on entries written before it. An
   * entry below today's version is a miss, never served.
   */
  replyRules?: number;
}

export interface ResponseCache {
  get(key: string): Promise<CachedResponse | undefined>;
  set(key: string, value: CachedResponse): Promise<void>;
}

export interface LedgerEntry {
  callKey: string;
  provider: string;
  model: string;
  judgeId: string;
  judgeConfigHash: string;
  answerHash: string;
  answerId?: string;
  /** The provider's figures; with `usageUnknown`, the pending estimate (an upper bound, not a count). */
  usage: TokenUsage;
  /** Null: no price for the model, or `usageUnknown`. */
  costUsd: number | null;
  latencyMs: number;
  /**
   * Set when the call was sent but its tokens are unknown (a timeout, a lost connection, a reply without
   * usage): its cost is null and no total counts it as $0 (docs/data-safety.md, "Calls of unknown cost").
   */
  usageUnknown?: UsageUnknownReason;
  /**
   * pending (written before the request is sent; usage and cost are then an estimate) | ok | truncated |
   * refused | invalid_output | retryable_error | fatal_error | stop_run
   */
  status: string;
  error?: string;
}

/**
 * One holding of a queue job: the job's id and which fetch of it this is. Once the job was handed to
 * another worker (its holder was taken for dead), writes made under the old lease are refused.
 */
export interface JobLease {
  /** The pg-boss queue the job is on. */
  queue: string;
  jobId: string;
  token: number;
}

export interface UsageLedger {
  /**
   * Records a call as `pending` before it is sent, so a process killed during the call still leaves
   * its row. Resolves false, writing nothing, when `lease` is given and no longer held: the call must
   * not be sent.
   */
  begin(entry: LedgerEntry, lease?: JobLease): Promise<boolean>;
  /** Settles the call begun under the same call key with its outcome, tokens and cost (or records it). */
  record(entry: LedgerEntry): Promise<void>;
  /**
   * The response cache lookup and begin() at once: the cached verdict when there is one (nothing
   * written), else begin()'s answer. The engine then looks up and records a call in one round trip.
   */
  beginUnlessCached?(cacheKey: string, entry: LedgerEntry, lease?: JobLease): Promise<{ hit: CachedResponse } | { begun: boolean }>;
}

export class MemoryCache implements ResponseCache {
  readonly entries = new Map<string, CachedResponse>();
  hits = 0;
  misses = 0;
  async get(key: string): Promise<CachedResponse | undefined> {
    const v = this.entries.get(key);
    if (v) this.hits++;
    else this.misses++;
    return v ? structuredClone(v) : undefined;
  }
  async set(key: string, value: CachedResponse): Promise<void> {
    this.entries.set(key, structuredClone(value));
  }
}

export class MemoryLedger implements UsageLedger {
  readonly entries: LedgerEntry[] = [];
  async begin(entry: LedgerEntry): Promise<boolean> {
    this.entries.push(structuredClone(entry));
    return true;
  }
  async record(entry: LedgerEntry): Promise<void> {
    // As in the table: a settled row is never rewritten.
    const i = this.entries.findIndex((e) => e.callKey === entry.callKey);
    if (i < 0) this.entries.push(structuredClone(entry));
    else if (this.entries[i]!.status === 'pending') this.entries[i] = structuredClone(entry);
  }
}
