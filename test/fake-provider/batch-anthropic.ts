/**
 * Anthropic Message Batches on the fake provider. Every batched request is answered with the same
 * scripted step as a live POST /v1/messages: a verdict step succeeds, a `status` step becomes an
 * `errored` item and a `hang` step an `expired` one. A batch is in_progress on its first retrieval
 * and ended from the second on (so clients must poll); results come back in a seeded shuffled order.
 */
import { mulberry32, shuffleInPlace } from '../../src/stats/random.ts';
import type { RouteContext, RouteHandler, RouteReply } from './server.ts';
import { anthropicResponse, type Provider, type RecordedCall } from './wire.ts';

interface FakeBatch {
  id: string;
  createdAt: string;
  lines: unknown[];
  counts: { succeeded: number; errored: number; expired: number };
  retrievals: number;
}

const batches = (ctx: RouteContext): Map<string, FakeBatch> => {
  let m = ctx.state.get('anthropic-batches') as Map<string, FakeBatch> | undefined;
  if (!m) ctx.state.set('anthropic-batches', (m = new Map()));
  return m;
};

function view(b: FakeBatch, host: string): unknown {
  const ended = b.retrievals >= 2;
  const n = b.lines.length;
  return {
    id: b.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : 'in_progress',
    request_counts: ended ? { processing: 0, ...b.counts, canceled: 0 } : { processing: n, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
    created_at: b.createdAt,
    ended_at: ended ? b.createdAt : null,
    expires_at: b.createdAt,
    archived_at: null,
    cancel_initiated_at: null,
    results_url: ended ? `http://${host}/v1/messages/batches/${b.id}/results` : null,
  };
}

const create: RouteHandler = (call, _step, ctx) => {
  const m = batches(ctx);
  const requests: Array<{ custom_id: string; params: unknown }> = call.body?.requests ?? [];
  const counts = { succeeded: 0, errored: 0, expired: 0 };
  const lines = requests.map((r) => {
    const item: RecordedCall = { provider: 'anthropic' as Provider, method: 'POST', path: '/v1/messages', headers: call.headers, body: r.params, index: call.index };
    const step = ctx.pick(item);
    if (step.kind === 'hang') {
      counts.expired++;
      return { custom_id: r.custom_id, result: { type: 'expired' } };
    }
    if (step.kind === 'status') {
      counts.errored++;
      return { custom_id: r.custom_id, result: { type: 'errored', error: { type: 'error', error: { type: step.type ?? 'api_error', message: step.message ?? `fake error ${step.status}` } } } };
    }
    counts.succeeded++;
    return { custom_id: r.custom_id, result: { type: 'succeeded', message: anthropicResponse(step, item, ctx.cache).body } };
  });
  // Order is not guaranteed by the real API; the fake makes sure clients do not rely on it.
  shuffleInPlace(lines, mulberry32(0xba7c + call.index));
  const b: FakeBatch = { id: `msgbatch_fake_${m.size + 1}`, createdAt: new Date().toISOString(), lines, counts, retrievals: 0 };
  m.set(b.id, b);
  return { status: 200, body: view(b, String(call.headers.host)) };
};

const notFound = (id: string | undefined): RouteReply => ({ status: 404, body: { type: 'error', error: { type: 'not_found_error', message: `no batch ${id}` } } });

const retrieve: RouteHandler = (call, _step, ctx) => {
  const b = batches(ctx).get(ctx.params.id ?? '');
  if (!b) return notFound(ctx.params.id);
  b.retrievals++;
  return { status: 200, body: view(b, String(call.headers.host)) };
};

const list: RouteHandler = (call, _step, ctx) => {
  const data = [...batches(ctx).values()].reverse().map((b) => view(b, String(call.headers.host)));
  return { status: 200, body: { data, has_more: false, first_id: (data[0] as { id?: string } | undefined)?.id ?? null, last_id: (data.at(-1) as { id?: string } | undefined)?.id ?? null } };
};

const results: RouteHandler = (_call, _step, ctx) => {
  const b = batches(ctx).get(ctx.params.id ?? '');
  if (!b) return notFound(ctx.params.id);
  return { status: 200, raw: b.lines.map((l) => JSON.stringify(l)).join('\n') + '\n' };
};

export const ANTHROPIC_BATCH_ROUTES: Record<string, { provider: Provider; handler: RouteHandler }> = {
  'POST /v1/messages/batches': { provider: 'anthropic', handler: create },
  'GET /v1/messages/batches': { provider: 'anthropic', handler: list },
  'GET /v1/messages/batches/:id': { provider: 'anthropic', handler: retrieve },
  'GET /v1/messages/batches/:id/results': { provider: 'anthropic', handler: results },
};
