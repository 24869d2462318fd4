import { badInput } from '../domain/errors.ts';
import { binomialHalfTwoSided } from './beta.ts';
import { erfc } from './normal.ts';

/**
 * McNemar's test on the discordant pairs of a paired 2 × 2 table: b = (yes, no), c = (no, yes).
 * Exact: two-sided binomial test of b against Bin(b + c, 1/2), statistic = min(b, c) (as statsmodels).
 * Chi-square: (|b − c| − 1)²/(b + c) with Edwards' continuity correction (R mcnemar.test's default), or
 * (b − c)²/(b + c) without; p from χ²(1).
 */
export function mcnemar(
  b: number,
  c: number,
  opts: { exact?: boolean; correction?: boolean } = {},
): { statistic: number | null; p: number; method: string; reason?: string } {
  for (const [name, v] of [['b', b], ['c', c]] as const) {
    if (!Number.isInteger(v) || v < 0) throw badInput(`${name} must be a whole number ≥ 0, got ${v}`);
  }
  const n = b + c;
  if (opts.exact) {
    return { statistic: Math.min(b, c), p: binomialHalfTwoSided(Math.min(b, c), n), method: 'exact binomial' };
  }
  const correction = opts.correction ?? true;
  const method = correction ? 'chi-square with continuity correction' : 'chi-square';
  if (n === 0) return { statistic: null, p: 1, method, reason: 'no discordant pairs: the statistic is 0/0 and there is no evidence of a difference' };
  const d = correction ? Math.max(Math.abs(b - c) - 1, 0) : Math.abs(b - c);
  const statistic = (d * d) / n;
  // χ²(1) upper tail: P(X > s) = erfc(√(s/2)).
  return { statistic, p: Math.min(1, erfc(Math.sqrt(statistic / 2))), method };
}
