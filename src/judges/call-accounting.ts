import type { LoadedJudge } from './config.ts';
import { costUsd, type PriceTable } from './prices.ts';
import type { CachedResponse, LedgerEntry, UsageLedger } from './store.ts';
import { addUsage, type Judge, type JudgeRequest, type TokenUsage, type UnknownCostReasons, type UsageUnknownReason, ZERO_USAGE } from './types.ts';

/**
 * The usage ledger side of one grade: each provider call's ledger row (pending before it is sent, settled
 * after) and the grade's running totals of calls, tokens and cost that its outcome reports.
 */

/**
 * Writes a paid call's ledger row and its verdict to the cache at once (one statement): a crash can no
 * longer fall between the two, where the call is recorded but not cached and a redelivery pays again.
 */
export interface LedgerAndCache {
  recordAndCache(entry: LedgerEntry, key: string, value: CachedResponse): Promise<void>;
}

/**
 * Usage held by a pending row until the provider's figures settle it, meant to over-count: every UTF-8
 * byte of the prompt text as an uncached input token (a token covers at least one byte; an image is not
 * counted) and the whole output budget.
 */
export function pendingEstimate(req: JudgeRequest, maxTokens: number): TokenUsage {
  const p = req.prompt;
  const text = [p.system, p.staticText, p.answerText, req.reask?.previous.text ?? '', req.reask?.error ?? ''];
  const bytes = text.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
  return { input: bytes, output: maxTokens, cacheRead: 0, cacheWrite: 0 };
}

/** What one grade's calls came to so far (mutable: the grade's attempts add to it). */
export interface CallTotals {
  calls: number;
  usage: TokenUsage;
  cost: number | null;
  unknownCostCalls: number;
  unknownCostReasons: UnknownCostReasons;
}

export const emptyTotals = (): CallTotals => ({ calls: 0, usage: { ...ZERO_USAGE }, cost: 0, unknownCostCalls: 0, unknownCostReasons: {} });

export type EntryFor = (status: string, u: TokenUsage | null, latencyMs: number, error?: string, unknown?: UsageUnknownReason) => LedgerEntry;

export interface CallAccounts {
  /** The ledger row of the current call, nothing added to the totals. */
  entryFor: EntryFor;
  /** The row of a call that is over, its figures added to the totals. */
  account: EntryFor;
  /** account, then the row settled in the ledger. */
  record: (...args: Parameters<EntryFor>) => Promise<void>;
}

export interface AccountsContext {
  judge: LoadedJudge;
  adapter: Judge;
  ledger: UsageLedger;
  prices: (req: JudgeRequest) => PriceTable;
  req: JudgeRequest;
  cacheKey: string;
  /** One per grade: with the call number it keys each call's row. */
  requestId: string;
  answerHash: string;
  answerId?: string;
}

export function callAccounts(c: AccountsContext, totals: CallTotals): CallAccounts {
  const cfg = c.judge.config;
  // A call of unknown usage keeps the pending estimate in its row (the columns take a number: an upper
  // bound, not a count), with a null cost and the reason; it adds nothing to the grade's tokens.
  const entryFor: EntryFor = (status, u, latencyMs, error, unknown) => {
    const why = u === null ? (unknown ?? 'no_usage') : undefined;
    const figures = u ?? pendingEstimate(c.req, cfg.params.max_tokens);
    return {
      callKey: c.adapter.sharedCallKey?.(c.req) ?? `${c.cacheKey.slice(0, 16)}:${c.requestId}:${totals.calls}`,
      provider: cfg.provider,
      model: cfg.model,
      judgeId: cfg.id,
      judgeConfigHash: c.judge.configHash,
      answerHash: c.answerHash,
      ...(c.answerId ? { answerId: c.answerId } : {}),
      usage: figures,
      costUsd: why ? null : costUsd(c.prices(c.req), cfg.model, figures),
      latencyMs,
      status,
      ...(why ? { usageUnknown: why } : {}),
      ...(error ? { error } : {}),
    };
  };
  const account: EntryFor = (status, u, latencyMs, error, unknown) => {
    const e = entryFor(status, u, latencyMs, error, unknown);
    totals.cost = totals.cost === null || e.costUsd === null ? null : Number((totals.cost + e.costUsd).toFixed(9));
    if (e.usageUnknown) {
      totals.unknownCostCalls++;
      totals.unknownCostReasons[e.usageUnknown] = (totals.unknownCostReasons[e.usageUnknown] ?? 0) + 1;
    } else totals.usage = addUsage(totals.usage, e.usage);
    return e;
  };
  const record = (...args: Parameters<EntryFor>): Promise<void> => c.ledger.record(account(...args));
  return { entryFor, account, record };
}
