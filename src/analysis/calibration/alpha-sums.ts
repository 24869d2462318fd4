/**
 * Krippendorff's alpha from additive sufficient statistics, for bootstrapping. Alpha depends on the data
 * only through the coincidence matrix o (a sum over units), so each answer is reduced once to its share
 * of o and a resample costs O(answers · V²) instead of re-coding every label (stats/krippendorff.ts,
 * which gives the point estimate, takes ~50 ms on 20 000 units; 1 000 resamples of that is minutes).
 * test/analysis/alpha-sums.test.ts checks these sums give krippendorffAlpha's value on the full data.
 */

export type SumsLevel = 'nominal' | 'ordinal' | 'interval';

/** One cluster's (answer's) contribution: the V × V coincidences, or the moments for interval data. */
export interface AlphaSums {
  o: Float64Array;
  /** interval: Σ m_u, Σ v, Σ v², Σ over units of Σ_{i≠j}(v_i − v_j)²/(m_u − 1), and the least and greatest value. */
  n: number;
  s1: number;
  s2: number;
  observed: number;
  lo: number;
  hi: number;
}

const empty = (V: number): AlphaSums => ({ o: new Float64Array(V * V), n: 0, s1: 0, s2: 0, observed: 0, lo: Infinity, hi: -Infinity });

/**
 * Adds the coincidences of one unit (its raters' values, null = missing) to `into`. Categorical values
 * are indices into the value list; interval values are numbers (pre-centred by the caller, for precision).
 */
export function addUnit(into: AlphaSums, level: SumsLevel, cells: readonly (number | null)[], V: number): void {
  const vals = cells.filter((c): c is number => c !== null);
  const m = vals.length;
  if (m < 2) return;
  if (level === 'interval') {
    let s1 = 0;
    let s2 = 0;
    let d = 0;
    for (let i = 0; i < m; i++) {
      const v = vals[i]!;
      s1 += v;
      s2 += v * v;
      if (v < into.lo) into.lo = v;
      if (v > into.hi) into.hi = v;
      for (let j = i + 1; j < m; j++) d += (v - vals[j]!) ** 2;
    }
    into.n += m;
    into.s1 += s1;
    into.s2 += s2;
    // Σ_{i≠j} (v_i − v_j)² pair by pair (m is the raters of one unit): exactly 0 when they agree, where
    // 2mΣv² − 2(Σv)² left a residue of either sign (alpha 1.0000000000000009 for 1).
    into.observed += (2 * d) / (m - 1);
    return;
  }
  const count = new Float64Array(V);
  for (const v of vals) count[v]! += 1;
  for (let c = 0; c < V; c++) {
    if (count[c] === 0) continue;
    for (let k = 0; k < V; k++) {
      const pairs = count[c]! * (count[k]! - (c === k ? 1 : 0));
      if (pairs > 0) into.o[c * V + k]! += pairs / (m - 1);
    }
  }
}

export function sumAll(parts: readonly AlphaSums[], V: number): AlphaSums {
  const total = empty(V);
  for (const p of parts) {
    for (let i = 0; i < V * V; i++) total.o[i]! += p.o[i]!;
    total.n += p.n;
    total.s1 += p.s1;
    total.s2 += p.s2;
    total.observed += p.observed;
    if (p.lo < total.lo) total.lo = p.lo;
    if (p.hi > total.hi) total.hi = p.hi;
  }
  return total;
}

/** Alpha of summed statistics; null when nothing is pairable or every value is the same. */
export function alphaFromSums(s: AlphaSums, level: SumsLevel, V: number): number | null {
  if (level === 'interval') {
    // One value throughout is 0/0, decided on the values (as stats/krippendorff decides it on the counts):
    // n Σv² − (Σv)² of equal values rounds to ±1e-17, and a resample of such answers read as alpha −0.125 or 1.
    if (s.n === 0 || !(s.lo < s.hi)) return null;
    // Σ_c Σ_k n_c n_k (v_c − v_k)² = 2(n Σv² − (Σv)²).
    const expected = 2 * (s.n * s.s2 - s.s1 * s.s1);
    return expected > 0 ? 1 - ((s.n - 1) * s.observed) / expected : null;
  }
  const marg = new Float64Array(V);
  for (let c = 0; c < V; c++) for (let k = 0; k < V; k++) marg[c]! += s.o[c * V + k]!;
  const n = marg.reduce((a, b) => a + b, 0);
  // Ordinal δ²(c,k) = (Σ_{g=c..k} n_g − (n_c + n_k)/2)² (Krippendorff 2011); nominal δ = 1 off the diagonal.
  const delta2 = (c: number, k: number): number => {
    if (level === 'nominal') return 1;
    const [lo, hi] = c < k ? [c, k] : [k, c];
    let g = 0;
    for (let x = lo; x <= hi; x++) g += marg[x]!;
    const d = g - (marg[lo]! + marg[hi]!) / 2;
    return d * d;
  };
  let observed = 0;
  let expected = 0;
  for (let c = 0; c < V; c++) {
    for (let k = 0; k < V; k++) {
      if (c === k) continue;
      const d = delta2(c, k);
      observed += s.o[c * V + k]! * d;
      expected += marg[c]! * marg[k]! * d;
    }
  }
  return n > 0 && expected > 0 ? 1 - ((n - 1) * observed) / expected : null;
}

/** Each cluster's statistics from raters × units cells (categorical: value indices; interval: numbers). */
export function clusterSums(
  level: SumsLevel,
  V: number,
  units: readonly { cluster: string; cells: readonly (number | null)[] }[],
): AlphaSums[] {
  const byCluster = new Map<string, AlphaSums>();
  for (const u of units) {
    let s = byCluster.get(u.cluster);
    if (!s) byCluster.set(u.cluster, (s = empty(V)));
    addUnit(s, level, u.cells, V);
  }
  return [...byCluster.values()];
}
