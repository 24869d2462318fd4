import Anthropic from '@anthropic-ai/sdk';
import type { JudgeParams } from '../config.ts';
import { anthropicReply, buildAnthropicBody, toCallError } from '../adapters/anthropic.ts';
import type { BatchClient, BatchItemResult, ProviderBatchSummary } from './types.ts';

/**
 * Anthropic Message Batches. Each request is the live adapter's Messages body under our custom_id.
 * The batch list carries no metadata, so reconciliation matches by creation time and request count
 * (see src/services/grading/batch.ts) and the results confirm ownership by custom_id.
 */

export interface AnthropicBatchOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  params: JudgeParams;
}

const wrap = async <T>(f: () => Promise<T>): Promise<T> => {
  try {
    return await f();
  } catch (e) {
    throw toCallError(e);
  }
};

export function createAnthropicBatchClient(o: AnthropicBatchOptions): BatchClient {
  const client = new Anthropic({ apiKey: o.apiKey, ...(o.baseURL ? { baseURL: o.baseURL } : {}), maxRetries: 2 });
  return {
    provider: 'anthropic',
    async create(items) {
      const requests = items.map((i) => ({ custom_id: i.customId, params: buildAnthropicBody(o.model, o.params, i.req) }));
      const b = await wrap(() => client.messages.batches.create({ requests } as unknown as Anthropic.Messages.BatchCreateParams));
      return b.id;
    },
    async ended(id) {
      const b = await wrap(() => client.messages.batches.retrieve(id));
      return b.processing_status === 'ended';
    },
    async results(id) {
      const out: BatchItemResult[] = [];
      const stream = await wrap(() => client.messages.batches.results(id));
      for await (const r of stream) {
        const res = r.result;
        if (res.type === 'succeeded') out.push({ customId: r.custom_id, ok: true, reply: anthropicReply(res.message) });
        else if (res.type === 'errored') out.push({ customId: r.custom_id, ok: false, kind: 'errored', error: `${res.error.error.type}: ${res.error.error.message}` });
        else out.push({ customId: r.custom_id, ok: false, kind: res.type, error: res.type });
      }
      return out;
    },
    async list(since) {
      const out: ProviderBatchSummary[] = [];
      // Newest first: stop paging at the first batch older than the window.
      for await (const b of client.messages.batches.list({ limit: 100 })) {
        const createdAt = new Date(b.created_at);
        if (createdAt < since) break;
        const c = b.request_counts;
        out.push({ id: b.id, createdAt, total: c.processing + c.succeeded + c.errored + c.canceled + c.expired, ended: b.processing_status === 'ended', intent: null });
      }
      return out;
    },
  };
}
