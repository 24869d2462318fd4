import { assertSameLength, encode, indexOf, sortedCategories } from './categories.ts';
import type { Label } from './types.ts';

/** Share of items on which the two raters give the same label; null when there are no items. */
export function percentAgreement(a: readonly Label[], b: readonly Label[]): number | null {
  assertSameLength(a, b);
  if (a.length === 0) return null;
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}

/**
 * Counts of (a, b) label pairs: rows are rater a's categories, columns rater b's. Categories are the
 * explicit list when given (pairs with a label outside it are left out, as scikit-learn does),
 * otherwise every label seen, numbers numerically then strings.
 */
export function confusionMatrix(
  a: readonly Label[],
  b: readonly Label[],
  categories?: readonly Label[],
): { categories: Label[]; matrix: number[][] } {
  assertSameLength(a, b);
  const cats = categories ? [...categories] : sortedCategories(a, b);
  const table = countTable(a, b, cats);
  const k = cats.length;
  const matrix = Array.from({ length: k }, (_, i) => Array.from(table.counts.subarray(i * k, (i + 1) * k)));
  return { categories: cats, matrix };
}

export interface CountTable {
  /** k × k counts, row-major (row = rater a). */
  counts: Float64Array;
  k: number;
  /** Pairs counted. */
  n: number;
  /** Pairs left out because a label was not among the categories. */
  excluded: number;
}

/** Encodes each rater once and tallies in one pass (the hot path of kappa on a million pairs). */
export function countTable(a: readonly Label[], b: readonly Label[], categories: readonly Label[]): CountTable {
  const index = indexOf(categories);
  const ea = encode(a, index);
  const eb = encode(b, index);
  const k = categories.length;
  const counts = new Float64Array(k * k);
  let excluded = 0;
  for (let i = 0; i < ea.length; i++) {
    const x = ea[i]!;
    const y = eb[i]!;
    if (x < 0 || y < 0) excluded++;
    else counts[x * k + y]! += 1;
  }
  return { counts, k, n: ea.length - excluded, excluded };
}
