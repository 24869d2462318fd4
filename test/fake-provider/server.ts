/**
 * A loopback fake of the Anthropic Messages and OpenAI Chat Completions endpoints, scripted per test.
 * Tests drive the real SDKs against it: point Anthropic's baseURL at `url` and OpenAI's at `openaiBaseUrl`.
 * Scripts can be per model name (`models`), and Chat Completions replies carry token log-probabilities
 * when the request asks for them (logprobs.ts).
 * Routes live in a table so later work (batch APIs, load) adds entries without touching the core.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANTHROPIC_BATCH_ROUTES } from './batch-anthropic.ts';
import { OPENAI_BATCH_ROUTES } from './batch-openai.ts';
import { anthropicResponse, openaiResponse, PromptCacheSim, type Provider, type RecordedCall, type Step, type StepFn, type WireResponse } from './wire.ts';

export type { RecordedCall, Step, StepFn, VerdictConfidence } from './wire.ts';

export type Script = Array<Step | StepFn> | StepFn;

export interface FakeProviderOptions {
  /** Step per call (counted from the last setScript; the last step repeats), or a function of the call. Default: 500s. */
  script?: Script;
  /**
   * Per model name (the request body's `model`, batched requests included): that model's own script,
   * its steps counted over that model's calls only (from the last setModelScripts). Models not listed
   * follow `script`. This is how a panel's members answer differently — one scripted verdict set per
   * model, one model that always fails.
   */
  models?: Record<string, Script>;
  /** Delay before every response, in milliseconds. */
  latencyMs?: number;
  /** Extra or replacement routes, keyed "METHOD /path". */
  routes?: Record<string, RouteHandler>;
}

export interface RouteContext {
  cache: PromptCacheSim;
  /** The scripted step for any call (batch routes script each batched request like a live one). */
  pick: (call: RecordedCall) => Step;
  /** Per-server state of stateful routes (batches, files). */
  state: Map<string, unknown>;
  /** `:name` segments of a pattern route. */
  params: Record<string, string>;
}

/** A route's reply; `raw` is sent as is (JSONL, file content) instead of JSON. */
export type RouteReply = WireResponse & { raw?: string };

export type RouteHandler = (call: RecordedCall, step: () => Step, ctx: RouteContext) => RouteReply | Promise<RouteReply>;

export interface FakeProvider {
  /** Origin, e.g. http://127.0.0.1:PORT — the Anthropic SDK baseURL. */
  url: string;
  /** url + '/v1' — the OpenAI SDK baseURL. */
  openaiBaseUrl: string;
  calls: RecordedCall[];
  setScript(script: Script): void;
  /** Replaces every per-model script (an empty object removes them) and restarts their step counts. */
  setModelScripts(models: Record<string, Script>): void;
  close(): Promise<void>;
}

const DEFAULT_ROUTES: Record<string, { provider: Provider; handler: RouteHandler }> = {
  'POST /v1/messages': { provider: 'anthropic', handler: (call, step, ctx) => anthropicResponse(step(), call, ctx.cache) },
  'POST /v1/chat/completions': { provider: 'openai', handler: (call, step, ctx) => openaiResponse(step(), call, ctx.cache) },
  ...ANTHROPIC_BATCH_ROUTES,
  ...OPENAI_BATCH_ROUTES,
};

/** Exact route first, then a pattern route whose `:name` segments match. */
function findRoute(key: string): { route: (typeof DEFAULT_ROUTES)[string]; params: Record<string, string> } | undefined {
  if (DEFAULT_ROUTES[key]) return { route: DEFAULT_ROUTES[key], params: {} };
  const parts = key.split(/[ /]/);
  for (const [k, route] of Object.entries(DEFAULT_ROUTES)) {
    const pat = k.split(/[ /]/);
    if (pat.length !== parts.length || !k.includes(':')) continue;
    const params: Record<string, string> = {};
    if (pat.every((p, i) => (p.startsWith(':') ? ((params[p.slice(1)] = parts[i]!), true) : p === parts[i]))) return { route, params };
  }
  return undefined;
}

function authorised(req: IncomingMessage): boolean {
  const bearer = /^Bearer\s+\S+/.test(String(req.headers.authorization ?? ''));
  return bearer || typeof req.headers['x-api-key'] === 'string';
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeProvider(opts: FakeProviderOptions = {}): Promise<FakeProvider> {
  let script: Script = opts.script ?? [{ kind: 'status', status: 500 }];
  // Steps count from the last setScript, so a long-lived server can be re-scripted per test.
  let base = 0;
  const calls: RecordedCall[] = [];
  const cache = new PromptCacheSim();
  const hanging = new Set<ServerResponse>();
  const state = new Map<string, unknown>();

  let models: Record<string, Script> = opts.models ?? {};
  // A model's step counter advances once per distinct call (a route may pick the same call twice).
  let modelCounts = new Map<string, number>();
  let modelSteps = new WeakMap<RecordedCall, number>();

  const stepOf = (sc: Script, i: number, call: RecordedCall): Step => {
    if (typeof sc === 'function') return sc(call);
    const s = sc[Math.min(i, sc.length - 1)];
    if (s === undefined) return { kind: 'status', status: 500 };
    return typeof s === 'function' ? s(call) : s;
  };

  const pick = (call: RecordedCall): Step => {
    const model = typeof call.body?.model === 'string' ? call.body.model : undefined;
    const own = model !== undefined && Object.hasOwn(models, model) ? models[model]! : undefined;
    if (own === undefined) return stepOf(script, call.index - base, call);
    let i = modelSteps.get(call);
    if (i === undefined) {
      i = modelCounts.get(model!) ?? 0;
      modelCounts.set(model!, i + 1);
      modelSteps.set(call, i);
    }
    return stepOf(own, i, call);
  };

  const server = createServer(async (req, res) => {
    const key = `${req.method} ${(req.url ?? '').split('?')[0]}`;
    const custom = opts.routes?.[key];
    const found = findRoute(key);
    const route = found?.route;
    if (!custom && !route) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${key}` } }));
      return;
    }
    const text = await readBody(req);
    if (!authorised(req)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'no key' } }));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const call: RecordedCall = { provider: route?.provider ?? 'openai', method: req.method ?? 'POST', path: req.url ?? '', headers: req.headers, body, index: calls.length };
    calls.push(call);
    if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
    const out = await (custom ?? route!.handler)(call, () => pick(call), { cache, pick, state, params: found?.params ?? {} });
    if (out.hang) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (out.raw !== undefined) res.writeHead(out.status, { 'content-type': 'application/octet-stream', ...(out.headers ?? {}) }).end(out.raw);
    else res.writeHead(out.status, { 'content-type': 'application/json', ...(out.headers ?? {}) }).end(JSON.stringify(out.body ?? {}));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    calls,
    setScript(s) {
      script = s;
      base = calls.length;
    },
    setModelScripts(m) {
      models = m;
      modelCounts = new Map();
      modelSteps = new WeakMap();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
