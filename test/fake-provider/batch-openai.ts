/**
 * OpenAI Files + Batch on the fake provider. An uploaded JSONL (multipart) is stored; a batch over it
 * answers every line with the same scripted step as a live POST /v1/chat/completions: a `status` step
 * becomes an error-file line, a `hang` step a `batch_expired` line. A batch is in_progress on its first
 * retrieval and completed from the second on; output lines come in a seeded shuffled order.
 */
import { mulberry32, shuffleInPlace } from '../../src/stats/random.ts';
import type { RouteContext, RouteHandler, RouteReply } from './server.ts';
import { openaiResponse, type Provider, type RecordedCall } from './wire.ts';

interface FakeBatch {
  id: string;
  createdAt: number;
  inputFileId: string;
  metadata: Record<string, string> | null;
  outputFileId: string;
  errorFileId: string;
  total: number;
  failed: number;
  retrievals: number;
}

const mapOf = <T>(ctx: RouteContext, key: string): Map<string, T> => {
  let m = ctx.state.get(key) as Map<string, T> | undefined;
  if (!m) ctx.state.set(key, (m = new Map()));
  return m;
};
const files = (ctx: RouteContext) => mapOf<string>(ctx, 'openai-files');
const batches = (ctx: RouteContext) => mapOf<FakeBatch>(ctx, 'openai-batches');

function addFile(ctx: RouteContext, content: string): string {
  const id = `file-fake-${files(ctx).size + 1}`;
  files(ctx).set(id, content);
  return id;
}

/** The `file` part of a multipart/form-data body. */
function filePart(body: string, contentType: string): string {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  const sep = `--${boundary?.[1] ?? boundary?.[2] ?? ''}`;
  for (const part of body.split(sep)) {
    if (!/name="file"/.test(part)) continue;
    const start = part.indexOf('\r\n\r\n');
    return part.slice(start + 4).replace(/\r\n$/, '');
  }
  return '';
}

const upload: RouteHandler = (call, _step, ctx) => {
  const content = filePart(typeof call.body === 'string' ? call.body : JSON.stringify(call.body), String(call.headers['content-type'] ?? ''));
  const id = addFile(ctx, content);
  return { status: 200, body: { id, object: 'file', bytes: content.length, created_at: Math.floor(Date.now() / 1000), filename: 'batch.jsonl', purpose: 'batch', status: 'processed' } };
};

const content: RouteHandler = (_call, _step, ctx) => {
  const f = files(ctx).get(ctx.params.id ?? '');
  return f === undefined ? { status: 404, body: { error: { message: 'no such file', type: 'invalid_request_error' } } } : { status: 200, raw: f };
};

function view(b: FakeBatch): unknown {
  const done = b.retrievals >= 2;
  return {
    id: b.id,
    object: 'batch',
    endpoint: '/v1/chat/completions',
    errors: null,
    input_file_id: b.inputFileId,
    completion_window: '24h',
    status: done ? 'completed' : 'in_progress',
    output_file_id: done ? b.outputFileId : null,
    error_file_id: done ? b.errorFileId : null,
    created_at: b.createdAt,
    request_counts: { total: b.total, completed: done ? b.total - b.failed : 0, failed: done ? b.failed : 0 },
    metadata: b.metadata,
  };
}

const create: RouteHandler = (call, _step, ctx) => {
  const input = files(ctx).get(String(call.body?.input_file_id));
  if (input === undefined) return { status: 400, body: { error: { message: 'input_file_id not found', type: 'invalid_request_error' } } };
  const ok: unknown[] = [];
  const bad: unknown[] = [];
  const lines = input.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { custom_id: string; body: unknown });
  lines.forEach((line, i) => {
    const item: RecordedCall = { provider: 'openai' as Provider, method: 'POST', path: '/v1/chat/completions', headers: call.headers, body: line.body, index: call.index };
    const step = ctx.pick(item);
    const id = `batch_req_${call.index}_${i}`;
    if (step.kind === 'hang') bad.push({ id, custom_id: line.custom_id, response: null, error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' } });
    else if (step.kind === 'status') {
      const r = openaiResponse(step, item, ctx.cache);
      bad.push({ id, custom_id: line.custom_id, response: { status_code: step.status, request_id: id, body: r.body }, error: null });
    } else ok.push({ id, custom_id: line.custom_id, response: { status_code: 200, request_id: id, body: openaiResponse(step, item, ctx.cache).body }, error: null });
  });
  shuffleInPlace(ok, mulberry32(0x0a1b + call.index));
  const jsonl = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).join('\n') + (xs.length ? '\n' : '');
  const b: FakeBatch = {
    id: `batch_fake_${batches(ctx).size + 1}`,
    createdAt: Math.floor(Date.now() / 1000),
    inputFileId: String(call.body?.input_file_id),
    metadata: call.body?.metadata ?? null,
    outputFileId: addFile(ctx, jsonl(ok)),
    errorFileId: addFile(ctx, jsonl(bad)),
    total: lines.length,
    failed: bad.length,
    retrievals: 0,
  };
  batches(ctx).set(b.id, b);
  return { status: 200, body: view(b) };
};

const notFound = (): RouteReply => ({ status: 404, body: { error: { message: 'no such batch', type: 'invalid_request_error' } } });

const retrieve: RouteHandler = (_call, _step, ctx) => {
  const b = batches(ctx).get(ctx.params.id ?? '');
  if (!b) return notFound();
  b.retrievals++;
  return { status: 200, body: view(b) };
};

const list: RouteHandler = (_call, _step, ctx) => {
  const data = [...batches(ctx).values()].reverse().map(view);
  return { status: 200, body: { object: 'list', data, first_id: (data[0] as { id?: string } | undefined)?.id ?? null, last_id: (data.at(-1) as { id?: string } | undefined)?.id ?? null, has_more: false } };
};

export const OPENAI_BATCH_ROUTES: Record<string, { provider: Provider; handler: RouteHandler }> = {
  'POST /v1/files': { provider: 'openai', handler: upload },
  'GET /v1/files/:id/content': { provider: 'openai', handler: content },
  'POST /v1/batches': { provider: 'openai', handler: create },
  'GET /v1/batches': { provider: 'openai', handler: list },
  'GET /v1/batches/:id': { provider: 'openai', handler: retrieve },
};
