/**
 * Wire formats of the two providers, for the fake server: how a scripted step becomes an Anthropic
 * Messages response or an OpenAI Chat Completions response. Token counts are simulated (≈ 4 characters
 * per token) and so is prompt caching, so benchmarks can measure the cacheable share of the input.
 */
import { createHash } from 'node:crypto';
import type { ClaimVerdict, ItemVerdict } from '../../src/domain/verdicts.ts';
import { fakeLogprobs } from './logprobs.ts';

export type Provider = 'anthropic' | 'openai';

export interface RecordedCall {
  provider: Provider;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** 0-based index among calls to this server. */
  index: number;
}

/** Probability of each item's verdict (by item id) the fake reports in OpenAI `logprobs`; unlisted → 1. */
export type VerdictConfidence = Record<string, number>;

export type Step =
  | { kind: 'verdicts'; output: unknown; confidence?: VerdictConfidence }
  /** A well-formed rubric output for whatever items the request asks about (in the request's order); unlisted items → missing. */
  | { kind: 'verdict-set'; verdicts: Record<string, ItemVerdict>; claims?: Array<{ text: string; verdict: ClaimVerdict }>; confidence?: VerdictConfidence }
  | { kind: 'text'; text: string }
  | { kind: 'truncated'; text: string }
  | { kind: 'refusal'; text?: string }
  | { kind: 'status'; status: number; headers?: Record<string, string>; type?: string; code?: string; message?: string }
  | { kind: 'hang' }
  | { kind: 'echo' }
  | { kind: 'echo-structured' };

export type StepFn = (call: RecordedCall) => Step;

export interface WireResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  hang?: boolean;
}

export const tokensOf = (chars: number): number => Math.ceil(chars / 4);

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: any) => (b?.type === 'text' ? b.text : b?.type === 'image' ? b.source?.data ?? '' : b?.type === 'image_url' ? b.image_url?.url ?? '' : '')).join('');
};

/** The prompt split at the provider's cache point: [cacheable prefix chars, remaining chars]. */
export function promptSplit(call: RecordedCall): { prefix: number; rest: number; prefixHash: string } {
  const b = call.body ?? {};
  if (call.provider === 'anthropic') {
    const system = textOf(b.system) + JSON.stringify(b.tools ?? []);
    const blocks: any[] = b.messages?.[0]?.content ?? [];
    const cut = blocks.findIndex((x) => x?.cache_control);
    const pre = system + textOf(blocks.slice(0, cut + 1));
    const rest = textOf(blocks.slice(cut + 1)) + (b.messages ?? []).slice(1).map((m: any) => textOf(m.content)).join('');
    return { prefix: cut >= 0 ? pre.length : 0, rest: cut >= 0 ? rest.length : pre.length + rest.length, prefixHash: createHash('sha256').update(pre).digest('hex') };
  }
  const msgs: any[] = b.messages ?? [];
  const system = textOf(msgs[0]?.content) + JSON.stringify(b.response_format ?? {});
  const user: any[] = Array.isArray(msgs[1]?.content) ? msgs[1].content : [];
  const pre = system + textOf(user.slice(0, -1));
  const rest = textOf(user.slice(-1)) + msgs.slice(2).map((m) => textOf(m.content)).join('');
  return { prefix: pre.length, rest: rest.length, prefixHash: createHash('sha256').update(pre).digest('hex') };
}

/** Item ids the request's schema allows (tool input_schema or response_format). */
export function requestItemIds(call: RecordedCall): string[] {
  const schema = call.provider === 'anthropic' ? call.body?.tools?.[0]?.input_schema : call.body?.response_format?.json_schema?.schema;
  return schema?.properties?.items?.items?.properties?.id?.enum ?? [];
}

/** The last user turn's text (what an echoing judge repeats). */
export function lastUserText(call: RecordedCall): string {
  const msgs: any[] = call.body?.messages ?? [];
  const last = [...msgs].reverse().find((m) => m.role === 'user');
  return textOf(last?.content);
}

export class PromptCacheSim {
  private readonly seen = new Set<string>();
  /** Anthropic: explicit breakpoints, any length. OpenAI: automatic, prefixes ≥ 1024 tokens, 128-token steps. */
  usage(call: RecordedCall): { input: number; cacheRead: number; cacheWrite: number } {
    const s = promptSplit(call);
    const pre = tokensOf(s.prefix);
    const rest = tokensOf(s.rest);
    const hit = this.seen.has(s.prefixHash);
    this.seen.add(s.prefixHash);
    if (call.provider === 'anthropic') {
      if (s.prefix === 0) return { input: rest, cacheRead: 0, cacheWrite: 0 };
      return hit ? { input: rest, cacheRead: pre, cacheWrite: 0 } : { input: rest, cacheRead: 0, cacheWrite: pre };
    }
    const cached = hit && pre >= 1024 ? Math.floor(pre / 128) * 128 : 0;
    return { input: pre + rest, cacheRead: cached, cacheWrite: 0 };
  }
}

function anthropicError(status: number, type = 'api_error', message = `fake error ${status}`): unknown {
  return { type: 'error', error: { type, message } };
}

export function anthropicResponse(step: Step, call: RecordedCall, cache: PromptCacheSim): WireResponse {
  if (step.kind === 'hang') return { status: 0, hang: true };
  if (step.kind === 'status') return { status: step.status, headers: step.headers ?? {}, body: anthropicError(step.status, step.type, step.message) };
  const u = cache.usage(call);
  const usage = { input_tokens: u.input, cache_read_input_tokens: u.cacheRead, cache_creation_input_tokens: u.cacheWrite, output_tokens: 0 };
  const tool = call.body?.tools?.[0]?.name ?? 'record_verdicts';
  let content: unknown[];
  let stop = 'end_turn';
  if (step.kind === 'verdicts' || step.kind === 'verdict-set') {
    content = [{ type: 'tool_use', id: `toolu_fake_${call.index}`, name: tool, input: structuredOutput(step, call) }];
    stop = 'tool_use';
  } else if (step.kind === 'echo-structured') {
    content = [{ type: 'tool_use', id: `toolu_fake_${call.index}`, name: tool, input: echoStructured(call) }];
    stop = 'tool_use';
  } else if (step.kind === 'refusal') {
    content = step.text ? [{ type: 'text', text: step.text }] : [];
    stop = 'refusal';
  } else {
    const text = step.kind === 'echo' ? lastUserText(call) : step.text;
    content = [{ type: 'text', text }];
    if (step.kind === 'truncated') stop = 'max_tokens';
  }
  usage.output_tokens = tokensOf(JSON.stringify(content).length);
  return {
    status: 200,
    body: { id: `msg_fake_${call.index}`, type: 'message', role: 'assistant', model: call.body?.model, content, stop_reason: stop, stop_sequence: null, usage },
  };
}

export function openaiResponse(step: Step, call: RecordedCall, cache: PromptCacheSim): WireResponse {
  if (step.kind === 'hang') return { status: 0, hang: true };
  if (step.kind === 'status') {
    return { status: step.status, headers: step.headers ?? {}, body: { error: { message: step.message ?? `fake error ${step.status}`, type: step.type ?? 'server_error', code: step.code ?? null } } };
  }
  const u = cache.usage(call);
  let content: string | null = null;
  let refusal: string | null = null;
  let finish = 'stop';
  if (step.kind === 'verdicts' || step.kind === 'verdict-set') content = JSON.stringify(structuredOutput(step, call));
  else if (step.kind === 'echo-structured') content = JSON.stringify(echoStructured(call));
  else if (step.kind === 'refusal') refusal = step.text ?? 'I cannot help with that.';
  else {
    content = step.kind === 'echo' ? lastUserText(call) : step.text;
    if (step.kind === 'truncated') finish = 'length';
  }
  const completion = tokensOf((content ?? refusal ?? '').length);
  // Chat Completions returns token log-probabilities only when the request asks (logprobs: true).
  const confidence = step.kind === 'verdicts' || step.kind === 'verdict-set' ? step.confidence ?? {} : {};
  const logprobs = call.body?.logprobs === true && content !== null ? { content: fakeLogprobs(content, confidence, Number(call.body?.top_logprobs ?? 0)), refusal: null } : null;
  return {
    status: 200,
    body: {
      id: `chatcmpl-fake-${call.index}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: call.body?.model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal }, finish_reason: finish, logprobs }],
      usage: { prompt_tokens: u.input, completion_tokens: completion, total_tokens: u.input + completion, prompt_tokens_details: { cached_tokens: u.cacheRead } },
    },
  };
}

/** A well-formed structured verdict whose evidence fields carry the whole answer turn verbatim. */
function echoStructured(call: RecordedCall): unknown {
  const echo = lastUserText(call);
  return { items: requestItemIds(call).map((id) => ({ id, verdict: 'missing', evidence: echo })), claims: [{ text: echo, verdict: 'unverifiable' }] };
}

/** The structured output of a verdicts step; a verdict set is laid out over the request's own item ids. */
function structuredOutput(step: Extract<Step, { kind: 'verdicts' | 'verdict-set' }>, call: RecordedCall): unknown {
  if (step.kind === 'verdicts') return step.output;
  return {
    items: requestItemIds(call).map((id) => ({ id, verdict: step.verdicts[id] ?? 'missing', evidence: '' })),
    claims: step.claims ?? [],
  };
}

/** A verdict-set step with numbered claims (`claim 0`, `claim 1`, …): what a scripted member answers. */
export const verdictSet = (verdicts: Record<string, ItemVerdict>, claims: ClaimVerdict[]): Step => ({
  kind: 'verdict-set',
  verdicts,
  claims: claims.map((verdict, i) => ({ text: `claim ${i}`, verdict })),
});
