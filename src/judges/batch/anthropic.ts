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

type Loose = Record<string, unknown> | null | undefined;
const asObject = (v: unknown): Loose => (v && typeof v === 'object' ? (v as Record<string, unknown>) : null);

/**
 * One results line, read without trusting its shape: a line of another shape is a failed item with the
 * reason (resubmitted like an errored one), never an exception that loses the whole batch's results.
 * A line without a custom_id names no item: it is left out (its item, missing, is resubmitted).
 */
function resultOf(line: unknown): BatchItemResult | null {
  const l = asObject(line);
  if (!l || typeof l.custom_id !== 'string') return null;
  const customId = l.custom_id;
  const res = asObject(l.result);
  const type = String(res?.type ?? 'none');
  const message = asObject(res?.message);
  if (type === 'succeeded' && message) return { customId, ok: true, reply: anthropicReply(message as unknown as Anthropic.Message) };
  if (type === 'expired' || type === 'canceled') return { customId, ok: false, kind: type, error: type };
  if (type === 'errored') {
    // The API nests the error object ({type: 'error', error: {type, message}}); a flat one is read too.
    const e = asObject(res?.error);
    const inner = asObject(e?.error) ?? e;
    return { customId, ok: false, kind: 'errored', error: `${String(inner?.type ?? 'error')}: ${String(inner?.message ?? JSON.stringify(res?.error ?? null))}` };
  }
  return { customId, ok: false, kind: 'errored', error: `malformed result (type ${type}${type === 'succeeded' ? ' without a message' : ''})` };
}

export function createAnthropicBatchClient(o: AnthropicBatchOptions): BatchClient {
  const client = new Anthropic({ apiKey: o.apiKey, ...(o.baseURL ? { baseURL: o.baseURL } : {}), maxRetries: 2 });
  return {
    provider: 'anthropic',
    keepsIntent: false,
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
        const item = resultOf(r as unknown);
        if (item) out.push(item);
      }
      return { items: out, problem: null };
    },
    list: (since) =>
      // Wrapped whole: each page is a request that can fail.
      wrap(async () => {
        const out: ProviderBatchSummary[] = [];
        // Newest first: stop paging at the first batch older than the window.
        for await (const b of client.messages.batches.list({ limit: 100 })) {
          const createdAt = new Date(b.created_at);
          if (createdAt < since) break;
          const c = b.request_counts;
          out.push({ id: b.id, createdAt, total: c.processing + c.succeeded + c.errored + c.canceled + c.expired, ended: b.processing_status === 'ended', intent: null });
        }
        return out;
      }),
  };
}
