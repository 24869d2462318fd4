import { assertOneLabelType, assertSameLength, checkLabel, compareLabels, indexOf, LabelCoder } from './categories.ts';
import type { Label } from './types.ts';

/** Share of items on which the two raters give the same label; null when there are no items. */
export function percentAgreement(a: readonly Label[], b: readonly Label[]): number | null {
  assertSameLength(a, b);
  if (a.length === 0) return null;
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  assertOneLabelType([...a, ...b]);
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
 * Codes both raters and tallies the k × k table in one pass (the hot path of kappa on a million pairs).
 * Rating data has a handful of categories, so each pair is matched against the known labels in one short
 * scan (no hashing); past CAP categories a Map-based coder takes over. Without an explicit list the
 * categories are those seen, sorted afterwards by permuting the small table.
 */
export function countTable(a: readonly Label[], b: readonly Label[], categories?: readonly Label[]): CountTable & { categories: Label[] } {
  if (categories) indexOf(categories); // rejects duplicates
  const grow = categories === undefined;
  const labels: Label[] = categories ? [...categories] : [];
  const n = a.length;
  let cap = Math.max(CAP, labels.length);
  let raw = new Float64Array(cap * cap);
  let excluded = 0;
  let i = 0;
  if (labels.length <= CAP) {
    for (; i < n; i++) {
      const u = a[i]!;
      const v = b[i]!;
      let x = -1;
      let y = -1;
      for (let c = 0; c < labels.length; c++) {
        const l = labels[c];
        if (l === u) x = c;
        if (l === v) y = c;
      }
      if (grow && (x < 0 || y < 0)) {
        if (labels.length + (x < 0 ? 1 : 0) + (y < 0 && u !== v ? 1 : 0) > CAP) break;
        if (x < 0) x = push(labels, u);
        if (y < 0) y = u === v ? x : push(labels, v);
      }
      if (x < 0 || y < 0) excluded++;
      else raw[x * cap + y]! += 1;
    }
  }
  if (i < n) {
    // Many categories: code the rest with a Map, then tally into a table of the final size.
    const coder = new LabelCoder(labels, grow);
    for (let j = i; j < n; j++) {
      coder.code(a[j]!);
      coder.code(b[j]!);
    }
    const big = coder.labels.length;
    const grown = new Float64Array(big * big);
    for (let x = 0; x < Math.min(cap, big); x++) for (let y = 0; y < Math.min(cap, big); y++) grown[x * big + y] = raw[x * cap + y]!;
    for (let j = i; j < n; j++) {
      const x = coder.code(a[j]!);
      const y = coder.code(b[j]!);
      if (x < 0 || y < 0) excluded++;
      else grown[x * big + y]! += 1;
    }
    labels.splice(0, labels.length, ...coder.labels);
    raw = grown;
    cap = big;
  }
  // The categories seen (or listed) hold one type; with a fixed list, so must the labels left out.
  assertOneLabelType(labels, categories ? 'categories' : 'labels');
  if (excluded > 0 && labels.length > 0) {
    const kind = typeof labels[0];
    const other = a.find((v) => typeof v !== kind) ?? b.find((v) => typeof v !== kind);
    if (other !== undefined) assertOneLabelType([labels[0]!, other], 'labels and categories');
  }
  const k = labels.length;
  const order = grow ? [...labels.keys()].sort((x, y) => compareLabels(labels[x]!, labels[y]!)) : labels.map((_, x) => x);
  const counts = new Float64Array(k * k);
  for (let x = 0; x < k; x++) for (let y = 0; y < k; y++) counts[x * k + y] = raw[order[x]! * cap + order[y]!]!;
  return { counts, k, n: n - excluded, excluded, categories: order.map((x) => labels[x]!) };
}

const CAP = 16;

function push(labels: Label[], v: Label): number {
  checkLabel(v);
  labels.push(v);
  return labels.length - 1;
}
