import { assertSameLength, compareLabels, indexOf, LabelCoder } from './categories.ts';
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
  const table = countTable(a, b, categories);
  const k = table.k;
  const matrix = Array.from({ length: k }, (_, i) => Array.from(table.counts.subarray(i * k, (i + 1) * k)));
  return { categories: table.categories, matrix };
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

/**
 * Codes both raters in one pass and tallies the k × k table (the hot path of kappa on a million pairs).
 * Without an explicit list the categories are those seen, sorted afterwards by permuting the small table.
 */
export function countTable(a: readonly Label[], b: readonly Label[], categories?: readonly Label[]): CountTable & { categories: Label[] } {
  if (categories) indexOf(categories); // rejects duplicates
  const coder = new LabelCoder(categories);
  const n = a.length;
  // Tally straight into a table sized for CAP categories; only more categories than that need a second pass.
  let cap = Math.max(CAP, categories?.length ?? 0);
  let raw = new Float64Array(cap * cap);
  let excluded = 0;
  let i = 0;
  for (; i < n; i++) {
    const x = coder.code(a[i]!);
    const y = coder.code(b[i]!);
    if (x >= cap || y >= cap) break;
    if (x < 0 || y < 0) excluded++;
    else raw[x * cap + y]! += 1;
  }
  if (i < n) {
    // Many categories: code everything first, then tally with the final size.
    for (let j = i; j < n; j++) {
      coder.code(a[j]!);
      coder.code(b[j]!);
    }
    const big = coder.labels.length;
    const grown = new Float64Array(big * big);
    for (let x = 0; x < cap; x++) for (let y = 0; y < cap; y++) grown[x * big + y] = raw[x * cap + y]!;
    for (let j = i; j < n; j++) grown[coder.code(a[j]!) * big + coder.code(b[j]!)]! += 1;
    raw = grown;
    cap = big;
  }
  const seen = coder.labels;
  const k = seen.length;
  const order = categories ? seen.map((_, x) => x) : [...seen.keys()].sort((x, y) => compareLabels(seen[x]!, seen[y]!));
  const counts = new Float64Array(k * k);
  for (let x = 0; x < k; x++) for (let y = 0; y < k; y++) counts[x * k + y] = raw[order[x]! * cap + order[y]!]!;
  return { counts, k, n: n - excluded, excluded, categories: order.map((x) => seen[x]!) };
}

const CAP = 16;
