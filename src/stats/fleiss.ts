import { badInput } from '../domain/errors.ts';
import { assertOneLabelType, checkLabel, compareLabels } from './categories.ts';
import { normalTwoSidedP } from './normal.ts';
import type { Label } from './types.ts';

/**
 * Fleiss' kappa for many raters (Fleiss 1971): `counts[i][j]` is how many of the m raters put subject i
 * in category j; every subject must have the same m. SE, z and p are those of the test of kappa = 0
 * (Fleiss, Nee & Landis 1979, as R irr::kappam.fleiss prints them), not an interval SE.
 */
export interface FleissResult {
  kappa: number | null;
  se: number | null;
  z: number | null;
  p: number | null;
  /** Per-category kappa_j (Fleiss 1971 eq. 15), keyed by category name or column index. */
  byCategory: Record<string, number | null>;
  /** Subjects and raters per subject. */
  subjects: number;
  raters: number;
  reason?: string;
}

function validate(counts: readonly (readonly number[])[], categories?: readonly string[]): { n: number; k: number; m: number } {
  const n = counts.length;
  const k = counts[0]?.length ?? 0;
  if (categories && categories.length !== k) throw badInput(`categories: ${categories.length} names for ${k} count columns`);
  // byCategory is keyed by name: a repeated name would silently drop one column's kappa
  const twice = categories?.find((c, i) => categories.indexOf(c) !== i);
  if (twice !== undefined) throw badInput(`categories: name ${JSON.stringify(twice)} is listed twice`);
  let m = -1;
  counts.forEach((row, i) => {
    if (row.length !== k) throw badInput(`counts: row ${i + 1} has ${row.length} columns, row 1 has ${k}`);
    let sum = 0;
    for (const c of row) {
      if (typeof c !== 'number' || !Number.isInteger(c) || c < 0) throw badInput(`counts: row ${i + 1} holds ${JSON.stringify(c)}, expected whole numbers ≥ 0`);
      sum += c;
    }
    if (m === -1) m = sum;
    else if (sum !== m) throw badInput(`counts: row ${i + 1} sums to ${sum} raters, row 1 to ${m} (Fleiss' kappa needs the same number of raters per subject)`);
  });
  return { n, k, m: Math.max(m, 0) };
}

export function fleissKappa(counts: readonly (readonly number[])[], categories?: readonly string[]): FleissResult {
  const { n, k, m } = validate(counts, categories);
  const keys = categories ? [...categories] : Array.from({ length: k }, (_, j) => String(j));
  const none = (reason: string): FleissResult => ({
    kappa: null,
    se: null,
    z: null,
    p: null,
    byCategory: Object.fromEntries(keys.map((key) => [key, null])),
    subjects: n,
    raters: m,
    reason,
  });
  if (n === 0 || k === 0) return none('no subjects');
  if (m < 2) return none('Fleiss\' kappa needs at least two raters per subject');

  const colSum = new Float64Array(k);
  const disagree = new Float64Array(k); // Σ_i x_ij (m − x_ij)
  let sumSquares = 0; // Σ_i Σ_j x_ij²
  for (const row of counts) {
    for (let j = 0; j < k; j++) {
      const x = row[j]!;
      colSum[j]! += x;
      disagree[j]! += x * (m - x);
      sumSquares += x * x;
    }
  }
  const p = Array.from(colSum, (c) => c / (n * m));
  const pBar = (sumSquares - n * m) / (n * m * (m - 1));
  const pe = p.reduce((s, pj) => s + pj * pj, 0);
  // fromEntries defines own properties, so a category named "__proto__" is kept like any other
  const byCategory: Record<string, number | null> = Object.fromEntries(
    keys.map((key, j) => {
      const pq = p[j]! * (1 - p[j]!);
      return [key, pq > 0 ? 1 - disagree[j]! / (n * m * (m - 1) * pq) : null];
    }),
  );
  if (pe >= 1 - 1e-12) return { ...none('every rating falls in one category, so chance agreement is 1 and kappa is 0/0'), byCategory };

  const kappa = (pBar - pe) / (1 - pe);
  const sumPQ = p.reduce((s, pj) => s + pj * (1 - pj), 0);
  const sumPQQmP = p.reduce((s, pj) => s + pj * (1 - pj) * (1 - 2 * pj), 0);
  const se = (Math.SQRT2 / (sumPQ * Math.sqrt(n * m * (m - 1)))) * Math.sqrt(Math.max(sumPQ * sumPQ - sumPQQmP, 0));
  const z = se > 0 ? kappa / se : null;
  return { kappa, se, z, p: z === null ? null : normalTwoSidedP(z), byCategory, subjects: n, raters: m };
}

/**
 * Subjects × raters labels → subjects × categories counts for fleissKappa. Categories are the labels
 * seen, sorted (numbers numerically); a missing rating is bad input, since Fleiss' kappa needs every
 * subject rated by the same number of raters.
 */
export function countsFromRatings(ratings: readonly (readonly (Label | null)[])[]): { categories: Label[]; counts: number[][] } {
  const seen = new Set<Label>();
  ratings.forEach((row, i) =>
    row.forEach((v, j) => {
      if (v === null || v === undefined) throw badInput(`ratings: subject ${i + 1}, rater ${j + 1} is missing (Fleiss' kappa needs every subject rated by every rater)`);
      checkLabel(v);
      seen.add(v);
    }),
  );
  assertOneLabelType(seen, 'ratings');
  const categories = [...seen].sort(compareLabels);
  const index = new Map(categories.map((c, j) => [c, j]));
  const counts = ratings.map((row) => {
    const out = new Array<number>(categories.length).fill(0);
    for (const v of row) out[index.get(v as Label)!]! += 1;
    return out;
  });
  return { categories, counts };
}
