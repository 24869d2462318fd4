import type { LabelScale } from '../../domain/labels.ts';
import type { AlphaStat, PairStats, TrustReading } from './types.ts';

/**
 * Which judge-vs-majority figure is comparable with the human–human alpha of each scale: weighted kappa
 * on points for verdicts (alpha is ordinal on the same points), kappa for binary labels (alpha nominal),
 * Pearson r for scores (alpha interval; r ignores bias, which is reported beside it).
 */
const STATISTIC: Readonly<Record<LabelScale, { name: TrustReading['statistic']; pick(p: PairStats): { value: number | null; ci: [number, number] | null } }>> = {
  verdict: { name: 'weightedKappa', pick: (p) => ({ value: p.weightedKappa?.kappa ?? null, ci: p.weightedKappa?.ci ?? null }) },
  binary: { name: 'kappa', pick: (p) => ({ value: p.kappa?.kappa ?? null, ci: p.kappa?.ci ?? null }) },
  numeric: { name: 'pearson', pick: (p) => ({ value: p.pearson?.r ?? null, ci: p.pearson?.ci ?? null }) },
};

/**
 * The judge can stand in for a person when its agreement with the human majority is not distinguishably
 * below the agreement of the people with each other: its 95% interval overlaps that of human–human alpha
 * (or reaches alpha itself when alpha has no interval).
 */
export function trustReading(scale: LabelScale, vsMajority: PairStats, ceiling: AlphaStat): TrustReading {
  const { name, pick } = STATISTIC[scale];
  const { value, ci } = pick(vsMajority);
  const base = { statistic: name, value, ci, ceiling: ceiling.alpha, ceilingCi: ceiling.ci };
  if (value === null || ci === null) return { ...base, withinHumanRange: null, reason: `the judge's ${name} or its interval is undefined` };
  if (ceiling.alpha === null) return { ...base, withinHumanRange: null, reason: 'human–human alpha is undefined (needs two humans on shared units)' };
  const humanLow = ceiling.ci ? ceiling.ci[0] : ceiling.alpha;
  return { ...base, withinHumanRange: ci[1] >= humanLow };
}
