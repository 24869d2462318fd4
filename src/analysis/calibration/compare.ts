import { SCALES, type LabelScale, type NormalLabel } from '../../domain/labels.ts';
import { cohenKappa } from '../../stats/kappa.ts';
import { confusionMatrix, percentAgreement } from '../../stats/agreement.ts';
import { pearson, spearman } from '../../stats/correlation.ts';
import type { CorrelationStat, KappaStat, PairStats, RaterLabels } from './types.ts';

/** Weighted kappa runs on verdict points; incorrect and missing both score 0 and merge into one level. */
export const POINT_LEVELS = [0, 0.5, 1] as const;

function kappaStat(a: (string | number)[], b: (string | number)[], opts: Parameters<typeof cohenKappa>[2]): KappaStat {
  const k = cohenKappa(a, b, opts);
  const out: KappaStat = { kappa: k.kappa, se: k.se, ci: k.ci };
  if (k.reason) out.reason = k.reason;
  return out;
}

export function corrStat(r: { r: number | null; p: number | null; ci?: [number, number] | null; reason?: string }): CorrelationStat {
  const out: CorrelationStat = { r: r.r, p: r.p };
  if (r.ci !== undefined) out.ci = r.ci;
  if (r.reason) out.reason = r.reason;
  return out;
}

/** Mean signed and mean absolute difference a − b; null when there is nothing to average. */
export function biasAndMae(a: readonly number[], b: readonly number[]): { bias: number | null; mae: number | null } {
  if (a.length === 0) return { bias: null, mae: null };
  let s = 0;
  let abs = 0;
  a.forEach((x, i) => {
    s += x - b[i]!;
    abs += Math.abs(x - b[i]!);
  });
  return { bias: s / a.length, mae: abs / a.length };
}

/**
 * Rater `a` (the judge, or the first of two) against `b` over the units both labelled, restricted to
 * `keys` when given. Kappa CIs are the analytic large-sample ones from stats/kappa (units treated as
 * independent; items of one answer are not, so read them as somewhat narrow).
 */
export function comparePair(a: RaterLabels, b: RaterLabels, scale: LabelScale, keys?: Iterable<string>): PairStats {
  const both: [NormalLabel, NormalLabel][] = [];
  for (const k of keys ?? a.keys()) {
    const x = a.get(k);
    const y = b.get(k);
    if (x && y) both.push([x, y]);
  }
  const n = both.length;
  const va = both.map(([x]) => x.value);
  const vb = both.map(([, y]) => y.value);
  const { bias, mae } = biasAndMae(va, vb);
  if (n === 0) return { n, bias, mae, reason: 'no units labelled by both' };

  if (scale === 'numeric') {
    return { n, pearson: corrStat(pearson(va, vb)), spearman: corrStat(spearman(va, vb)), bias, mae };
  }
  const ca = both.map(([x]) => x.category);
  const cb = both.map(([, y]) => y.category);
  const categories = SCALES[scale].categories!;
  const out: PairStats = {
    n,
    agreement: percentAgreement(ca, cb),
    kappa: kappaStat(ca, cb, { weights: 'none', categories, confidence: 0.95 }),
  };
  if (scale === 'verdict') {
    out.weightedKappa = kappaStat(va, vb, { weights: 'linear', categories: POINT_LEVELS, confidence: 0.95 });
  }
  out.confusion = confusionMatrix(ca, cb, categories);
  out.bias = bias;
  out.mae = mae;
  return out;
}
