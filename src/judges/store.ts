import type { JudgeOutput } from './contract.ts';
import type { StopKind, TokenUsage } from './types.ts';

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
  usage: TokenUsage;
  costUsd: number | null;
  latencyMs: number;
  /** ok | truncated | refused | invalid_output | retryable_error | fatal_error | stop_run */
  status: string;
  error?: string;
}

export interface UsageLedger {
  record(entry: LedgerEntry): Promise<void>;
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
  async record(entry: LedgerEntry): Promise<void> {
    this.entries.push(structuredClone(entry));
  }
}
