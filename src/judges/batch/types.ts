import type { PriceTable } from '../prices.ts';
import type { JudgeReply, JudgeRequest } from '../types.ts';

/**
 * What the batch grader needs from a provider's batch API. The clients in this directory (and the
 * adapters) are the only modules that import an SDK; src/services/grading/batch.ts sees these shapes.
 */

/** Both providers bill batched tokens at half the list price. */
export const BATCH_DISCOUNT = 0.5;

export interface BatchItem {
  customId: string;
  req: JudgeRequest;
}

/** errored / expired / canceled items are resubmitted once; a success is a reply like a live call's. */
export type BatchItemResult =
  | { customId: string; ok: true; reply: JudgeReply }
  | { customId: string; ok: false; kind: 'errored' | 'expired' | 'canceled'; error: string };

export interface ProviderBatchSummary {
  id: string;
  createdAt: Date;
  /** Number of requests in the batch. */
  total: number;
  ended: boolean;
  /** Our intent id, when the provider keeps metadata (OpenAI). */
  intent: string | null;
}

export interface BatchClient {
  readonly provider: 'anthropic' | 'openai';
  /**
   * The provider keeps our intent id with the batch (OpenAI metadata): a restart then knows its batch by
   * that alone. Without it (Anthropic), only creation time and request count can tell.
   */
  readonly keepsIntent: boolean;
  /** Creates the batch and returns its provider id; `intent` is written into provider metadata where possible. */
  create(items: BatchItem[], intent: string): Promise<string>;
  /** True once the provider stopped processing (results can be fetched). */
  ended(id: string): Promise<boolean>;
  /**
   * Every item's result, in whatever order the provider returns them; `problem`: what the provider said
   * of the batch as a whole (OpenAI: a batch failed in validation has no items at all), the reason of
   * any item it left out.
   */
  results(id: string): Promise<{ items: BatchItemResult[]; problem: string | null }>;
  /** Batches created at or after `since`, newest first (reconciliation after a restart). */
  list(since: Date): Promise<ProviderBatchSummary[]>;
}

/** The price table at the batch discount: the ledger records what a batch call really costs. */
export function batchPrices(table: PriceTable): PriceTable {
  const models: PriceTable['models'] = {};
  for (const [model, p] of Object.entries(table.models)) {
    models[model] = { input: p.input * BATCH_DISCOUNT, output: p.output * BATCH_DISCOUNT, cache_read: p.cache_read * BATCH_DISCOUNT, cache_write: p.cache_write * BATCH_DISCOUNT };
  }
  return { models };
}
