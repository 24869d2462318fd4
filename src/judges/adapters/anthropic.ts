import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type { JudgeParams } from '../config.ts';
import { classifyFailure } from '../retry.ts';
import type { Judge, JudgeReply, JudgeRequest, StopKind } from '../types.ts';

/**
 * Anthropic Messages API. A single tool whose input_schema is the verdict schema, with tool_choice
 * forcing it, makes the structured verdict the tool input. The static block (rubric, reference,
 * picture) carries cache_control so repeat calls for the same rubric read it from the prompt cache.
 */

const TOOL = 'record_verdicts';
const EPHEMERAL = { type: 'ephemeral' } as const;

const STOPS: Readonly<Record<string, StopKind>> = { max_tokens: 'truncated', model_context_window_exceeded: 'truncated', refusal: 'refused' };

export interface AnthropicJudgeOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  params: JudgeParams;
}

type Block = Record<string, unknown>;

function userContent(req: JudgeRequest): Block[] {
  const p = req.prompt;
  const blocks: Block[] = [{ type: 'text', text: p.staticText }];
  if (p.image) blocks.push({ type: 'image', source: { type: 'base64', media_type: p.image.mediaType, data: p.image.data } });
  // The cache breakpoint goes on the last block of the static prefix.
  blocks[blocks.length - 1]!.cache_control = EPHEMERAL;
  blocks.push({ type: 'text', text: p.answerText });
  return blocks;
}

function reaskTurns(req: JudgeRequest): Array<{ role: 'assistant' | 'user'; content: Block[] }> {
  if (!req.reask) return [];
  const { previous, error } = req.reask;
  const note = `Your output was rejected: ${error}. Call ${TOOL} again with one verdict for every rubric item id and nothing else.`;
  if (previous.toolUseId) {
    return [
      { role: 'assistant', content: [{ type: 'tool_use', id: previous.toolUseId, name: TOOL, input: previous.structured ?? {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: previous.toolUseId, is_error: true, content: note }] },
    ];
  }
  return [
    { role: 'assistant', content: [{ type: 'text', text: previous.text.trim() || '(empty)' }] },
    { role: 'user', content: [{ type: 'text', text: note }] },
  ];
}

export function toCallError(e: unknown): Error {
  if (e instanceof APIConnectionTimeoutError) return classifyFailure({ timeout: true }, e.message);
  if (e instanceof APIConnectionError) return classifyFailure({ connection: true, cause: e.cause }, e.message);
  if (e instanceof APIError && e.status !== undefined) {
    return classifyFailure({ status: e.status, headers: e.headers, detail: JSON.stringify(e.error ?? '') }, e.message);
  }
  // Not an API error: the SDK failed in a way it does not classify (reading a reply's body, say), so whether
  // the request reached the provider is unknown: fatal, and its cost unknown rather than $0.
  return classifyFailure({ unclassified: true }, (e as Error)?.message ?? String(e));
}

/** The Messages request body for one judge request (shared with the Message Batches client). */
export function buildAnthropicBody(model: string, params: JudgeParams, req: JudgeRequest): Record<string, unknown> {
  return {
    model,
    max_tokens: params.max_tokens,
    temperature: params.temperature,
    system: [{ type: 'text', text: req.prompt.system }],
    tools: [{ name: TOOL, description: 'Record the verdicts for this answer.', input_schema: req.schema }],
    tool_choice: { type: 'tool', name: TOOL },
    messages: [{ role: 'user', content: userContent(req) }, ...reaskTurns(req)],
  };
}

/** A Messages reply as a JudgeReply (shared with the Message Batches client). */
export function anthropicReply(res: Anthropic.Message): JudgeReply {
  const content = (res.content ?? []) as Array<{ type: string; text?: string; input?: unknown; id?: string; name?: string }>;
  const calls = content.filter((b) => b.type === 'tool_use' && b.name === TOOL);
  const tool = calls[0];
  // tool_choice forces the tool, not a single call of it: two different inputs are two verdict sets, and
  // neither is the judge's answer (a re-ask replays and answers the first). The same input twice is one.
  const different = new Set(calls.map((b) => JSON.stringify(b.input))).size > 1;
  const text = content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('\n');
  const u = (res.usage ?? {}) as Partial<Anthropic.Usage>;
  // Without its input and output counts a reply's usage is unknown (null), never 0 tokens and $0.
  const known = typeof u.input_tokens === 'number' && typeof u.output_tokens === 'number';
  const stopReason = String(res.stop_reason ?? '');
  return {
    ...(tool ? { structured: tool.input, toolUseId: tool.id } : {}),
    ...(different ? { problem: `the reply called ${TOOL} ${calls.length} times with different verdicts; call it once` } : {}),
    text: different ? JSON.stringify(calls.map((b) => b.input)) : tool ? JSON.stringify(tool.input) : text,
    stop: STOPS[stopReason] ?? 'complete',
    stopDetail: stopReason === 'refusal' && text ? `${stopReason}: ${text.slice(0, 300)}` : stopReason,
    usage: known
      ? { input: u.input_tokens!, output: u.output_tokens!, cacheRead: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0 }
      : null,
  };
}

export function createAnthropicJudge(o: AnthropicJudgeOptions): Judge {
  const client = new Anthropic({ apiKey: o.apiKey, ...(o.baseURL ? { baseURL: o.baseURL } : {}), maxRetries: 0, timeout: o.params.timeout_ms });
  return {
    provider: 'anthropic',
    model: o.model,
    baseline: false,
    async call(req: JudgeRequest): Promise<JudgeReply> {
      const body = buildAnthropicBody(o.model, o.params, req);
      let res: Anthropic.Message;
      try {
        res = (await client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming, { timeout: req.timeoutMs })) as Anthropic.Message;
      } catch (e) {
        throw toCallError(e);
      }
      return anthropicReply(res);
    },
  };
}
