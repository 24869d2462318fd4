import type { Rubric } from '../domain/rubric.ts';
import { VERDICT_POINTS } from '../domain/verdicts.ts';
import { scoreDescription, type UnverifiablePolicy } from '../scoring/description/score.ts';
import type { RubricOutput, ReferenceMatchOutput } from './contract.ts';
import type { GradeStatus } from '../domain/grades.ts';
import type { JudgeIdentity, JudgeOutcome } from './engine.ts';

/**
 * A judge outcome as the grade report of `assay grade --json`, POST /grades and the grades row.
 * The three scores are null whenever status is not ok: a failed call never produces a number.
 */

/**
 * Where an item's confidence comes from (docs/grades.md#confidence): `logprob` — the probability the judge's
 * token log-probabilities give its verdict; `vote` — a panel's vote share (or, when every ok sample had
 * log-probabilities, their probabilities: panels.md); null — none (lexical, Anthropic, no logprobs asked).
 */
export type ConfidenceSource = 'logprob' | 'vote';

export interface GradeReportItem {
  id: string;
  weight: number;
  verdict: string;
  evidence: string;
  points: number;
  /** Probability of `verdict`, 0–1; null when the judge gives none. */
  confidence: number | null;
  confidenceSource: ConfidenceSource | null;
}

export interface GradeReport {
  status: GradeStatus;
  completeness: number | null;
  correctness: number | null;
  f1: number | null;
  items: GradeReportItem[];
  claims: Array<{ text: string; verdict: string }>;
  /** Scored meta (orientation, grid, pieceCount), the failure reason, the reference-match label, hashes. */
  meta: Record<string, unknown>;
  usage: { calls: number; cached: boolean; input: number; output: number; cacheRead: number; cacheWrite: number; costUsd: number | null; latencyMs: number };
  judge: JudgeIdentity;
}

export function buildReport(rubric: Rubric, answer: string, o: JudgeOutcome, opts: { unverifiable?: UnverifiablePolicy } = {}): GradeReport {
  const usage = { calls: o.calls, cached: o.cached, ...o.usage, costUsd: o.costUsd, latencyMs: o.latencyMs };
  const meta: Record<string, unknown> = { reason: o.reason, promptHash: o.promptHash, cacheKey: o.cacheKey, neutralised: o.neutralised };
  if (o.stopRun) meta.stopRun = true;
  // Calls sent whose tokens are unknown (a timeout, no usage in the reply): usage counts the others, and
  // costUsd is null because of these, not a missing price (docs/data-safety.md, "Calls of unknown cost").
  if (o.unknownCostCalls > 0) {
    meta.unknownCostCalls = o.unknownCostCalls;
    meta.unknownCostReasons = o.unknownCostReasons;
  }
  const empty = { completeness: null, correctness: null, f1: null, items: [], claims: [] };
  if (o.status !== 'ok' || !o.output) return { status: o.status, ...empty, meta, usage, judge: o.judge };

  if ('label' in o.output) {
    const rm = o.output as ReferenceMatchOutput;
    return { status: 'ok', ...empty, meta: { ...meta, label: rm.label, rationale: rm.rationale }, usage, judge: o.judge };
  }
  const out = o.output as RubricOutput;
  const score = scoreDescription(rubric, { items: out.items.map(({ id, verdict }) => ({ id, verdict })), claims: out.claims }, { answer, ...(opts.unverifiable ? { unverifiable: opts.unverifiable } : {}) });
  const evidence = new Map(out.items.map((i) => [i.id, i.evidence]));
  return {
    status: 'ok',
    completeness: score.completeness,
    correctness: score.correctness,
    f1: score.f1,
    items: score.items.map((it) => {
      // An item the judge left out is scored missing by the scorer: it has no probability of its own.
      const p = evidence.has(it.id) ? o.confidence?.[it.id] : undefined;
      return { id: it.id, weight: it.weight, verdict: it.verdict, evidence: evidence.get(it.id) ?? '', points: it.weight * VERDICT_POINTS[it.verdict], confidence: p ?? null, confidenceSource: p === undefined ? null : ('logprob' as const) };
    }),
    claims: out.claims.map((c) => ({ text: c.text, verdict: c.verdict })),
    meta: { ...meta, ...(score.meta ? score.meta : {}), points: score.points, claimCounts: score.claims },
    usage,
    judge: o.judge,
  };
}
