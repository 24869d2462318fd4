import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { JudgeParams } from '../config.ts';
import { type ReplyConfidence, type TokenLogprob, verdictConfidence } from '../logprob-confidence.ts';
import { classifyFailure } from '../retry.ts';
import type { Judge, JudgeReply, JudgeRequest, StopKind } from '../types.ts';

/**
 * OpenAI Chat Completions with a strict json_schema response_format; with a baseURL the same adapter
 * serves OpenAI-compatible local servers. OpenAI caches identical prompt prefixes automatically, so the
 * message order (system, static rubric block, picture, then the answer) is what makes calls cacheable.
 */

const FINISH: Readonly<Record<string, StopKind>> = { length: 'truncated', content_filter: 'refused' };

/**
 * A reply of a judge whose params ask for `logprobs`: the same reply plus each item verdict's
 * probability (src/judges/logprob-confidence.ts has the method). Judges that do not ask get a plain
 * JudgeReply, without the field, and their requests are unchanged.
 */
export interface OpenAIJudgeReply extends JudgeReply {
  confidence?: ReplyConfidence;
}

export interface OpenAIJudgeOptions {
  provider: 'openai' | 'openai-compatible';
  apiKey: string;
  baseURL?: string;
  model: string;
  params: JudgeParams;
}

// OpenAI's newer models reject max_tokens; local servers often only know max_tokens.
const TOKEN_PARAM: Readonly<Record<OpenAIJudgeOptions['provider'], string>> = {
  openai: 'max_completion_tokens',
  'openai-compatible': 'max_tokens',
};

type Part = Record<string, unknown>;

export function toCallError(e: unknown): Error {
  if (e instanceof APIConnectionTimeoutError) return classifyFailure({ timeout: true }, e.message);
  if (e instanceof APIConnectionError) return classifyFailure({ connection: true, cause: e.cause }, e.message);
  if (e instanceof APIError && e.status !== undefined) {
    return classifyFailure({ status: e.status, headers: e.headers, detail: `${e.code ?? ''} ${e.type ?? ''}` }, e.message);
  }
  // Not an API error: the SDK failed in a way it does not classify (reading a reply's body, say), so whether
  // the request reached the provider is unknown: fatal, and its cost unknown rather than $0.
  return classifyFailure({ unclassified: true }, (e as Error)?.message ?? String(e));
}

/** The Chat Completions request body for one judge request (shared with the Batch client). */
export function buildOpenAIBody(provider: OpenAIJudgeOptions['provider'], model: string, params: JudgeParams, req: JudgeRequest): Record<string, unknown> {
  const p = req.prompt;
  const user: Part[] = [{ type: 'text', text: p.staticText }];
  if (p.image) user.push({ type: 'image_url', image_url: { url: `data:${p.image.mediaType};base64,${p.image.data}` } });
  user.push({ type: 'text', text: p.answerText });
  const messages: Part[] = [
    { role: 'system', content: p.system },
    { role: 'user', content: user },
  ];
  if (req.reask) {
    messages.push(
      { role: 'assistant', content: req.reask.previous.text || '(empty)' },
      { role: 'user', content: `Your output was rejected: ${req.reask.error}. Reply again with the corrected JSON object only.` },
    );
  }
  return {
    model,
    messages,
    temperature: params.temperature,
    [TOKEN_PARAM[provider]]: params.max_tokens,
    response_format: { type: 'json_schema', json_schema: { name: req.mode === 'rubric' ? 'rubric_verdicts' : 'reference_match', strict: true, schema: req.schema } },
    // Only when the judge asks: the request of every other judge stays byte-identical (and cache-equal).
    ...(params.logprobs ? { logprobs: true, ...(params.top_logprobs !== undefined ? { top_logprobs: params.top_logprobs } : {}) } : {}),
  };
}

/** Item verdict confidence of a reply's text from its token log-probabilities. */
function replyConfidence(text: string, tokens: readonly TokenLogprob[] | null | undefined): ReplyConfidence {
  let items: unknown;
  try {
    items = (JSON.parse(text) as { items?: unknown })?.items;
  } catch {
    return { source: 'none', reason: 'the reply is not a JSON object, so no verdict can be located in it' };
  }
  if (!Array.isArray(items)) return { source: 'none', reason: 'the reply has no rubric items' };
  const parsed = items.map((it) => ({ id: String((it as { id?: unknown })?.id), verdict: String((it as { verdict?: unknown })?.verdict) }));
  return verdictConfidence(text, parsed, tokens);
}

/**
 * A Chat Completions reply as a JudgeReply (shared with the Batch client). With `logprobs` (the judge
 * asked for them) the reply also carries `confidence`, from the choice's token log-probabilities.
 */
export function openaiReply(res: OpenAI.ChatCompletion, opts: { logprobs?: boolean } = {}): OpenAIJudgeReply {
  const choice = res.choices?.[0];
  const finish = String(choice?.finish_reason ?? '');
  const refusal = choice?.message?.refusal;
  const u = res.usage;
  const cached = u?.prompt_tokens_details?.cached_tokens ?? 0;
  const reply: OpenAIJudgeReply = {
    text: choice?.message?.content ?? refusal ?? '',
    stop: refusal ? 'refused' : (FINISH[finish] ?? 'complete'),
    stopDetail: refusal ? `refusal: ${refusal.slice(0, 300)}` : finish,
    // prompt_tokens includes the cached ones; the ledger counts uncached input separately. A reply without
    // the counts (OpenAI-compatible servers may leave usage out) has unknown usage (null), never 0 tokens.
    usage:
      typeof u?.prompt_tokens === 'number' && typeof u.completion_tokens === 'number'
        ? { input: Math.max(0, u.prompt_tokens - cached), output: u.completion_tokens, cacheRead: cached, cacheWrite: 0 }
        : null,
  };
  if (opts.logprobs) {
    const content = choice?.message?.content;
    reply.confidence = typeof content === 'string' ? replyConfidence(content, choice?.logprobs?.content) : { source: 'none', reason: 'the reply has no content (a refusal)' };
  }
  return reply;
}

/** The OpenAI adapter: a Judge whose replies may carry `confidence`. */
export interface OpenAIJudge extends Judge {
  call(req: JudgeRequest): Promise<OpenAIJudgeReply>;
}

export function createOpenAIJudge(o: OpenAIJudgeOptions): OpenAIJudge {
  const client = new OpenAI({ apiKey: o.apiKey, ...(o.baseURL ? { baseURL: o.baseURL } : {}), maxRetries: 0, timeout: o.params.timeout_ms });
  return {
    provider: o.provider,
    model: o.model,
    baseline: false,
    async call(req: JudgeRequest): Promise<OpenAIJudgeReply> {
      const body = buildOpenAIBody(o.provider, o.model, o.params, req);
      let res: OpenAI.ChatCompletion;
      try {
        res = await client.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, { timeout: req.timeoutMs });
      } catch (e) {
        throw toCallError(e);
      }
      return openaiReply(res, { logprobs: o.params.logprobs === true });
    },
  };
}
