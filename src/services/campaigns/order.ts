import type { QueueReason } from '../../domain/campaigns.ts';
import { mulberry32, shuffleInPlace } from '../../stats/random.ts';

/**
 * The queue order of a campaign (pure): answers where judges or panel samples disagree first, then a
 * seeded random audit slice of the others, then the rest in answer order. Each answer says why.
 */

/** One judge's newest ok grade of an answer, as the disagreement test reads it. */
export interface GradeVotes {
  items: ReadonlyArray<{ id: string; verdict: string }> | null;
  label: string | null;
  /** A panel grade's per-item vote counts (meta.panel.items), if it is one. */
  panel: ReadonlyArray<{ id: string; votes: Record<string, number> }> | null;
}

/**
 * Do the grades of one answer disagree? Two judges disagree when they give one rubric item different
 * verdicts, or different reference-match labels; a panel's samples disagree when one item's votes
 * are split over more than one verdict.
 */
export function gradesDisagree(grades: readonly GradeVotes[]): boolean {
  for (const g of grades) {
    if (g.panel?.some((it) => Object.values(it.votes ?? {}).filter((n) => n > 0).length > 1)) return true;
  }
  if (grades.length < 2) return false;
  const byItem = new Map<string, Set<string>>();
  const labels = new Set<string>();
  for (const g of grades) {
    for (const it of g.items ?? []) byItem.set(it.id, (byItem.get(it.id) ?? new Set()).add(it.verdict));
    if (g.label !== null) labels.add(g.label.trim().toLowerCase());
  }
  return labels.size > 1 || [...byItem.values()].some((s) => s.size > 1);
}

export interface QueuedAnswer {
  answerId: number;
  rank: number;
  reason: QueueReason;
}

export interface OrderOptions {
  disagreementFirst: boolean;
  /** Share of the answers left after the disagreements drawn as the audit slice (rounded to the nearest whole). */
  auditShare: number;
  seed: number;
}

/** `answerIds` in any order; `disagreeing` the ids whose grades disagree. Ranks run 0..n-1. */
export function campaignOrder(answerIds: readonly number[], disagreeing: ReadonlySet<number>, opts: OrderOptions): QueuedAnswer[] {
  const ids = [...new Set(answerIds)].sort((a, b) => a - b);
  const first = opts.disagreementFirst ? ids.filter((id) => disagreeing.has(id)) : [];
  const firstSet = new Set(first);
  const others = ids.filter((id) => !firstSet.has(id));
  const drawn = shuffleInPlace([...others], mulberry32(opts.seed)).slice(0, Math.round(opts.auditShare * others.length));
  const drawnSet = new Set(drawn);
  const rest = others.filter((id) => !drawnSet.has(id));
  const out: QueuedAnswer[] = [];
  const push = (list: number[], reason: QueueReason) => list.forEach((answerId) => out.push({ answerId, rank: out.length, reason }));
  push(first, 'disagreement');
  push(drawn, 'audit');
  push(rest, 'rest');
  return out;
}
