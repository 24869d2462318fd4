import type { Rubric } from '../domain/rubric.ts';
import type { JudgeConfig, JudgeMode } from './config.ts';
import type { ReplyConfidence } from './logprob-confidence.ts';
import type { AssembledPrompt } from './prompt.ts';

/**
 * The Judge interface: what every adapter implements. Adapters (src/judges/adapters/*) are the only
 * modules that import a provider SDK; the engine sees only these shapes.
 */

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * Why a call's tokens and cost are unknown although it was sent (docs/data-safety.md, "Calls of unknown
 * cost"): `timeout` — no reply within the deadline; `aborted` — the call ended after the request left with
 * no reply read (connection lost, an adapter failure); `no_usage` — a reply without usage figures. The
 * provider most likely billed each: they are never counted as 0 tokens, $0.
 */
export const USAGE_UNKNOWN_REASONS = ['timeout', 'aborted', 'no_usage'] as const;
export type UsageUnknownReason = (typeof USAGE_UNKNOWN_REASONS)[number];
/** How many calls of unknown cost there were for each reason (a reason without calls is absent). */
export type UnknownCostReasons = Partial<Record<UsageUnknownReason, number>>;

export const ZERO_USAGE: TokenUsage = Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

export const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cacheRead: a.cacheRead + b.cacheRead,
  cacheWrite: a.cacheWrite + b.cacheWrite,
});

export interface JudgeRequest {
  mode: JudgeMode;
  rubric: Rubric;
  prompt: AssembledPrompt;
  /** The raw (untrusted) answer, for offline judges that do not read prompts (lexical, replay). */
  answer: string;
  answerHash: string;
  answerId?: string;
  /** JSON Schema of the structured output (tool input_schema / response_format). */
  schema: Record<string, unknown>;
  /** Set on the single re-ask: what the judge returned and what was wrong with it. */
  reask?: { previous: JudgeReply; error: string };
  timeoutMs: number;
}

export type StopKind = 'complete' | 'truncated' | 'refused';

export interface JudgeReply {
  /** The structured field (tool input or parsed response_format content), when the provider gave one. */
  structured?: unknown;
  /** Raw text output: JSON text, prose, or the structured field serialised. Stored as raw_output. */
  text: string;
  stop: StopKind;
  /** Provider's own words for the stop (stop_reason / finish_reason / refusal text). */
  stopDetail?: string;
  /** The provider's token counts; null when the reply carried none (cost unknown, never read as 0). */
  usage: TokenUsage | null;
  /**
   * Why the reply cannot be read as one verdict although it is well-formed (Anthropic: the verdict tool
   * called twice with different input): invalid output, re-asked like a validation error.
   */
  problem?: string;
  /** Provider-side id of a tool call (Anthropic re-asks answer it with a tool_result). */
  toolUseId?: string;
  /** Per-item verdict probabilities from token log-probabilities, when the judge asked for them (OpenAI adapters). */
  confidence?: ReplyConfidence;
}

export interface Judge {
  readonly provider: JudgeConfig['provider'];
  readonly model: string;
  /** True for judges that are not language models (lexical): every report labels them as a floor. */
  readonly baseline: boolean;
  call(req: JudgeRequest): Promise<JudgeReply>;
  /**
   * The ledger key of a reply paid for once and handed to several calls (a batch result shared by the
   * answers of one request, services/grading/batch.ts): every call with it settles that one row, so the
   * paid request is counted once. None (undefined): each call is its own request with its own row.
   */
  sharedCallKey?(req: JudgeRequest): string | undefined;
}

/** How the retry policy treats a failed call; adapters classify their SDK's errors into this. */
export type FailureKind = 'retryable' | 'fatal' | 'stop-run';

export class ProviderCallError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status?: number,
    /** Server-requested delay (retry-after-ms / retry-after), already in milliseconds. */
    readonly retryAfterMs?: number,
    /** Set when the request may have reached the provider (a timeout, a connection lost mid-call): its cost is unknown, not 0. */
    readonly usageUnknown?: Exclude<UsageUnknownReason, 'no_usage'>,
  ) {
    super(message);
    this.name = 'ProviderCallError';
  }
}
