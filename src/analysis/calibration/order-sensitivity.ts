import { badInput } from '../../domain/errors.ts';
import { bootstrapCI } from '../../stats/bootstrap.ts';

/**
 * Order sensitivity of a shuffled panel (`shuffle: true`, docs/panels.md): how far a member's completeness
 * moves when only the order of the rubric items in its prompt moves. Each sample of a member saw the items
 * in its own seeded order, so the spread between one member's samples of one answer is what the order
 * (plus any sampling noise the member has at its temperature) does to the score.
 *
 * Per member and answer: the mean absolute difference of completeness over all pairs of the member's ok
 * samples (needs ≥ 2). The member's figure is the unweighted mean of those over answers, with a seeded
 * percentile bootstrap interval over answers — answers, not pairs, are the independent units (the pairs of
 * one answer share samples).
 */

/** What the figure reads of one shuffled panel grade: its samples (the stored report's `members`). */
export interface ShuffledGrade {
  answer: string;
  members: ReadonlyArray<{ judge: string; sample: number; status: string; completeness: number | null }>;
}

export interface MemberOrderSensitivity {
  judge: string;
  /** Mean over answers of the mean absolute completeness difference between the member's ok samples; null without an answer with 2 ok samples. */
  meanAbsDifference: number | null;
  /** Percentile bootstrap interval of meanAbsDifference over answers; null when it is null or there is only one answer. */
  ci: [number, number] | null;
  /** Answers with at least two ok samples of this member (the units). */
  answers: number;
  /** Sample pairs compared, over all answers. */
  pairs: number;
  reason?: string;
}

export interface OrderSensitivity {
  /** Shuffled panel grades read. */
  grades: number;
  seed: number;
  resamples: number;
  confidence: number;
  /** One row per member, in order of first appearance. */
  members: MemberOrderSensitivity[];
}

export interface OrderSensitivityOptions {
  seed: number;
  /** Bootstrap resamples; default 2000. */
  resamples?: number;
  /** Two-sided confidence of the interval; default 0.95. */
  confidence?: number;
}

/** Mean absolute difference over all pairs of `values` (≥ 2 of them), and the number of pairs. */
export function meanPairwiseAbsDifference(values: readonly number[]): { value: number; pairs: number } {
  if (values.length < 2) throw badInput(`mean pairwise difference needs at least 2 values, got ${values.length}`);
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < values.length; i++) {
    for (let j = i + 1; j < values.length; j++) {
      sum += Math.abs(values[i]! - values[j]!);
      pairs += 1;
    }
  }
  return { value: sum / pairs, pairs };
}

const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

export function orderSensitivity(grades: readonly ShuffledGrade[], opts: OrderSensitivityOptions): OrderSensitivity {
  const resamples = opts.resamples ?? 2000;
  const confidence = opts.confidence ?? 0.95;
  // Per member: one mean difference per answer, in grade order (so the bootstrap draws are reproducible).
  const perMember = new Map<string, { diffs: number[]; pairs: number }>();
  for (const g of grades) {
    const ok = new Map<string, number[]>();
    for (const m of g.members) {
      if (!perMember.has(m.judge)) perMember.set(m.judge, { diffs: [], pairs: 0 });
      if (m.status !== 'ok' || m.completeness === null) continue;
      const list = ok.get(m.judge);
      if (list) list.push(m.completeness);
      else ok.set(m.judge, [m.completeness]);
    }
    for (const [judge, values] of ok) {
      if (values.length < 2) continue;
      const d = meanPairwiseAbsDifference(values);
      const row = perMember.get(judge)!;
      row.diffs.push(d.value);
      row.pairs += d.pairs;
    }
  }
  const members = [...perMember].map(([judge, { diffs, pairs }]): MemberOrderSensitivity => {
    if (diffs.length === 0) return { judge, meanAbsDifference: null, ci: null, answers: 0, pairs: 0, reason: 'no answer with two ok samples of this member' };
    // One answer resamples to itself every time: a zero-width interval would claim a certainty it lacks.
    if (diffs.length === 1) return { judge, meanAbsDifference: diffs[0]!, ci: null, answers: 1, pairs, reason: 'one answer: no interval' };
    const b = bootstrapCI(diffs, mean, { seed: opts.seed, resamples, confidence });
    return { judge, meanAbsDifference: b.estimate, ci: b.ci, answers: diffs.length, pairs, ...(b.ci === null && b.reason ? { reason: b.reason } : {}) };
  });
  return { grades: grades.length, seed: opts.seed, resamples, confidence, members };
}
