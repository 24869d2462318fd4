import type { LabelScale } from '../../domain/labels.ts';
import type { AlphaStat, PairStats, TrustReading } from './types.ts';

/**
 * Which judge-vs-majority figure is read against the people of each scale: weighted kappa on points for
 * verdicts, kappa for binary labels, Pearson r for scores. The same figure is computed for every
 * annotator against the majority of the others (ceiling.ts leaveOneAnnotatorOut), so the judge and the
 * people are measured the same way.
 */
const STATISTIC: Readonly<Record<LabelScale, { name: TrustReading['statistic']; pick(p: PairStats): { value: number | null; ci: [number, number] | null } }>> = {
  verdict: { name: 'weightedKappa', pick: (p) => ({ value: p.weightedKappa?.kappa ?? null, ci: p.weightedKappa?.ci ?? null }) },
  binary: { name: 'kappa', pick: (p) => ({ value: p.kappa?.kappa ?? null, ci: p.kappa?.ci ?? null }) },
  numeric: { name: 'pearson', pick: (p) => ({ value: p.pearson?.r ?? null, ci: p.pearson?.ci ?? null }) },
};

/** The definition the pages and the terminal print beside the reading (docs/analysis.md says the same). */
export const HUMAN_RANGE_RULE =
  'human level = the median, over annotators, of each annotator against the majority of the other annotators (leave one annotator out); ' +
  "a judge is within human range when the upper end of its 95% interval against the majority of all annotators reaches that median";

export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * The judge can stand in for a person when its agreement with the human majority is not distinguishably
 * below that of a typical annotator with the others: the judge's 95% interval reaches the median of the
 * leave-one-annotator-out figures. The median, not alpha and not the lowest annotator: one careless
 * annotator (kappa near 0 against the rest) would lower alpha's interval, or the bottom of a min–max
 * range, far enough that any judge "overlaps" it; with three or more annotators the median moves by at
 * most one rank. Human–human alpha is still reported beside it (`ceiling`), as a description of the
 * people, not as the bar.
 */
export function trustReading(scale: LabelScale, vsMajority: PairStats, ceiling: AlphaStat, leaveOneOut: Readonly<Record<string, PairStats>>): TrustReading {
  const { name, pick } = STATISTIC[scale];
  const { value, ci } = pick(vsMajority);
  const humans = Object.entries(leaveOneOut).map(([annotator, p]) => ({ annotator, n: p.n, value: pick(p).value }));
  const humanLevel = median(humans.flatMap((h) => (h.value === null ? [] : [h.value])));
  const base = { statistic: name, value, ci, ceiling: ceiling.alpha, ceilingCi: ceiling.ci, humanLevel, humans, rule: HUMAN_RANGE_RULE };
  if (value === null || ci === null) return { ...base, withinHumanRange: null, reason: `the judge's ${name} or its interval is undefined` };
  if (humanLevel === null) {
    return { ...base, withinHumanRange: null, reason: `no annotator's ${name} against the others is defined (needs two annotators on shared units)` };
  }
  return { ...base, withinHumanRange: ci[1] >= humanLevel };
}
