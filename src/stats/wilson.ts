import { badInput } from '../domain/errors.ts';
import { checkConfidence, twoSidedZ } from './normal.ts';
import type { Interval } from './types.ts';

/**
 * Wilson score interval for a binomial proportion (two-sided, no continuity correction; Wilson 1927,
 * R binom.confint method "wilson"). Unlike p̂ ± z·SE it stays inside [0, 1] and keeps its coverage near
 * 0 and 1 and for small n.
 */
export function wilson(
  successes: number,
  trials: number,
  confidence = 0.95,
): { estimate: number | null; ci: [number, number] | null; reason?: string } {
  if (!Number.isInteger(successes) || successes < 0) throw badInput(`successes must be a whole number ≥ 0, got ${successes}`);
  if (!Number.isInteger(trials) || trials < 0) throw badInput(`trials must be a whole number ≥ 0, got ${trials}`);
  if (successes > trials) throw badInput(`successes (${successes}) cannot exceed trials (${trials})`);
  checkConfidence(confidence);
  if (trials === 0) return { estimate: null, ci: null, reason: 'no trials' };
  const n = trials;
  const p = successes / n;
  const z = twoSidedZ(confidence);
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = ((z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n)));
  // At p̂ = 0 or 1 the bound is exactly 0 or 1; rounding must not push it past.
  const ci: Interval = [successes === 0 ? 0 : Math.max(0, centre - half), successes === n ? 1 : Math.min(1, centre + half)];
  return { estimate: p, ci };
}
