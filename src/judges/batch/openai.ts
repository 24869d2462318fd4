import OpenAI, { toFile } from 'openai';
import type { JudgeParams } from '../config.ts';
import { buildOpenAIBody, openaiReply, toCallError } from '../adapters/openai.ts';
import type { BatchClient, BatchItemResult, ProviderBatchSummary } from './types.ts';

/**
 * OpenAI Batch: a JSONL input file of Chat Completions bodies (the live adapter's) under our custom_id,
 * then a batch over it with `metadata.assay_intent`, which is how a restart finds a batch it created
 * but did not get to record. Results come from the output file, failures from the error file.
 */

export interface OpenAIBatchOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  params: JudgeParams;
}

const ENDED = new Set(['completed', 'failed', 'expired', 'cancelled']);
const ENDPOINT = '/v1/chat/completions';

const wrap = async <T>(f: () => Promise<T>): Promise<T> => {
  try {
    return await f();
  } catch (e) {
    throw toCallError(e);
  }
};

interface OutputLine {
  custom_id: string;
  response?: { status_code: number; body: unknown } | null;
  error?: { code?: string | null; message?: string | null } | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object';

/**
 * One output line; `logprobs`: the judge asked for them, so the reply carries item confidence as a live
 * call's does. A line of another shape is a failed item with the reason (resubmitted like an errored one).
 */
function itemResult(line: OutputLine, logprobs: boolean): BatchItemResult {
  const r = isObject(line.response) ? line.response : null;
  if (line.response !== undefined && line.response !== null && !r) return { customId: line.custom_id, ok: false, kind: 'errored', error: 'malformed result line (response is not an object)' };
  if (r && r.status_code === 200 && !line.error) {
    if (!isObject(r.body)) return { customId: line.custom_id, ok: false, kind: 'errored', error: 'malformed result line (status 200 without a response body)' };
    return { customId: line.custom_id, ok: true, reply: openaiReply(r.body as unknown as OpenAI.ChatCompletion, { logprobs }) };
  }
  const code = String(line.error?.code ?? (r ? `http_${r.status_code}` : 'error'));
  const kind = /expired/.test(code) ? 'expired' : /cancel/.test(code) ? 'canceled' : 'errored';
  const detail = line.error?.message ?? JSON.stringify((r?.body as { error?: unknown } | undefined)?.error ?? '');
  return { customId: line.custom_id, ok: false, kind, error: `${code}: ${detail}` };
}

export function createOpenAIBatchClient(o: OpenAIBatchOptions): BatchClient {
  const client = new OpenAI({ apiKey: o.apiKey, ...(o.baseURL ? { baseURL: o.baseURL } : {}), maxRetries: 2 });
  const lines = async (fileId: string | null | undefined): Promise<OutputLine[]> => {
    if (!fileId) return [];
    const text = await wrap(async () => (await client.files.content(fileId)).text());
    // A line that is no JSON object with a custom_id names no item: it is left out (that item, missing,
    // is resubmitted) instead of throwing away every other line of the file.
    const parsed = text.split('\n').filter((l) => l.trim() !== '').map((l) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return null;
      }
    });
    return parsed.filter((l): l is OutputLine => isObject(l) && typeof l.custom_id === 'string');
  };
  return {
    provider: 'openai',
    keepsIntent: true,
    async create(items, intent) {
      const jsonl = items.map((i) => JSON.stringify({ custom_id: i.customId, method: 'POST', url: ENDPOINT, body: buildOpenAIBody('openai', o.model, o.params, i.req) })).join('\n');
      const file = await wrap(async () => client.files.create({ file: await toFile(Buffer.from(jsonl, 'utf8'), `assay-${intent}.jsonl`), purpose: 'batch' }));
      const b = await wrap(() => client.batches.create({ input_file_id: file.id, endpoint: ENDPOINT, completion_window: '24h', metadata: { assay_intent: intent } }));
      return b.id;
    },
    async ended(id) {
      const b = await wrap(() => client.batches.retrieve(id));
      return ENDED.has(b.status);
    },
    async results(id) {
      const b = await wrap(() => client.batches.retrieve(id));
      const items = [...(await lines(b.output_file_id)), ...(await lines(b.error_file_id))].map((line) => itemResult(line, o.params.logprobs === true));
      const errors = (b.errors?.data ?? []).map((e) => `${e.code ?? 'error'}: ${e.message ?? ''}${e.line ? ` (line ${e.line})` : ''}`);
      const problem = b.status !== 'completed' || errors.length ? `batch ${id} ${b.status}${errors.length ? `: ${errors.join('; ')}` : ''}` : null;
      return { items, problem };
    },
    list: (since) =>
      // Wrapped whole: each page is a request that can fail.
      wrap(async () => {
        const out: ProviderBatchSummary[] = [];
        for await (const b of client.batches.list({ limit: 100 })) {
          const createdAt = new Date(b.created_at * 1000);
          if (createdAt < since) break;
          const meta = (b.metadata ?? {}) as Record<string, string>;
          out.push({ id: b.id, createdAt, total: b.request_counts?.total ?? 0, ended: ENDED.has(b.status), intent: meta.assay_intent ?? null });
        }
        return out;
      }),
  };
}
