import { badInput } from '../../domain/errors.ts';

/**
 * Reliability diagram of a judge's item confidence (docs/grades.md#confidence): the items graded with a
 * confidence, binned by it, against the share of them where the judge's verdict equals the human
 * majority's. A well-calibrated judge's items at confidence 0.8 agree with people 80% of the time.
 * Pure: the caller decides what `agrees` means (a unit whose humans tie has no majority and is left out
 * before it gets here).
 */

export interface ReliabilityBin {
  lo: number;
  hi: number;
  n: number;
  meanConfidence: number | null;
  agreement: number | null;
}

export const DEFAULT_RELIABILITY_BINS = 10;
/** A diagram is read by eye and a bin needs points: more bins than this is a mistake, not a request. */
export const MAX_RELIABILITY_BINS = 100;

/**
 * Equal-width bins over [0, 1]: bin i holds lo ≤ c < hi with lo = i/bins, hi = (i+1)/bins; the last bin
 * is closed (holds c = 1). ECE (expected calibration error) = Σ_b n_b/N · |agreement_b − meanConfidence_b|
 * over non-empty bins; null when there are no points.
 */
export function reliabilityDiagram(
  points: ReadonlyArray<{ confidence: number; agrees: boolean }>,
  bins: number = DEFAULT_RELIABILITY_BINS,
): { bins: ReliabilityBin[]; n: number; ece: number | null } {
  if (!Number.isInteger(bins) || bins < 1 || bins > MAX_RELIABILITY_BINS) throw badInput(`bins must be a whole number from 1 to ${MAX_RELIABILITY_BINS}, got ${bins}`);
  const n = new Array<number>(bins).fill(0);
  const conf = new Array<number>(bins).fill(0);
  const agree = new Array<number>(bins).fill(0);
  points.forEach((p, i) => {
    if (!Number.isFinite(p.confidence) || p.confidence < 0 || p.confidence > 1) throw badInput(`points[${i}].confidence must be a number from 0 to 1, got ${p.confidence}`);
    const b = Math.min(Math.floor(p.confidence * bins), bins - 1);
    n[b]! += 1;
    conf[b]! += p.confidence;
    if (p.agrees) agree[b]! += 1;
  });
  const out: ReliabilityBin[] = n.map((count, i) => ({
    lo: i / bins,
    hi: (i + 1) / bins,
    n: count,
    meanConfidence: count > 0 ? conf[i]! / count : null,
    agreement: count > 0 ? agree[i]! / count : null,
  }));
  const total = points.length;
  const ece = total === 0 ? null : out.reduce((s, b) => (b.n === 0 ? s : s + (b.n / total) * Math.abs(b.agreement! - b.meanConfidence!)), 0);
  return { bins: out, n: total, ece };
}
