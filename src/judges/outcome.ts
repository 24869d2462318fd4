import type { GradeStatus } from '../domain/grades.ts';
import type { JudgeOutput } from './contract.ts';
import type { TokenUsage, UnknownCostReasons } from './types.ts';

/** What the judge engine (engine.ts) hands back for one answer: the judge it was and the outcome with its status. */

export interface JudgeIdentity {
  id: string;
  provider: string;
  model: string;
  mode: string;
  configHash: string;
  /** True for the lexical baseline: a floor, not a judge. */
  baseline: boolean;
  note?: string;
}

export const LEXICAL_NOTE = 'lexical word-overlap baseline: an offline floor, not an LLM judge';

export interface JudgeOutcome {
  status: GradeStatus;
  reason: string | null;
  /** Validated verdicts; null whenever status is not ok. */
  output: JudgeOutput | null;
  raw: string | null;
  cached: boolean;
  /** Provider calls made for this answer (0 on a cache hit). */
  calls: number;
  /** Tokens of the calls whose usage the provider reported (those of unknown cost are not in it). */
  usage: TokenUsage;
  /** Null when a call's model has no price or any call's cost is unknown (unknownCostCalls). */
  costUsd: number | null;
  /**
   * Calls sent whose tokens are unknown (a timeout, a lost connection, a reply without usage): most likely
   * billed, so the cost is unknown, never $0 (docs/data-safety.md, "Calls of unknown cost").
   */
  unknownCostCalls: number;
  /** unknownCostCalls by reason (timeout | aborted | no_usage): what `assay grade` and the grade page tell. */
  unknownCostReasons: UnknownCostReasons;
  latencyMs: number;
  promptHash: string;
  staticHash: string;
  answerHash: string;
  cacheKey: string;
  neutralised: number;
  /** The failure means every later call would fail too (auth, quota): the run must stop. */
  stopRun: boolean;
  /** The input's job lease was lost before a call (another worker holds the job): nothing was sent. */
  leaseLost?: boolean;
  judge: JudgeIdentity;
  /** Ok only: item id → probability of its verdict, when the provider returned token log-probabilities (docs/grades.md#confidence). */
  confidence?: Record<string, number>;
}

/** Builds an answer's outcome from its status and what its calls cost so far. */
export type Finish = (status: GradeStatus, reason: string | null, output: JudgeOutput | null, raw: string | null, extra?: Partial<JudgeOutcome>) => JudgeOutcome;
