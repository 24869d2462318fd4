import { quantileSorted } from 'simple-statistics';
import { checkedOptions, type BootstrapOptions, type BootstrapResult } from './bootstrap.ts';

/**
 * `bootstrapCI(column, mean, opts)` for many columns at once, bit for bit: the reports ask for hundreds of
 * mean intervals (model × bucket × metric), each a thousand resamples. A resample's draws depend only on
 * the seed and the column's length, so columns of one length share them: the indices of each resample
 * are drawn once into a buffer, and every column of that length is summed over the same buffer — no
 * sample array, no statistic call. Sums run left to right from 0 (what `reduce((a, b) => a + b, 0)` over
 * the resample adds), so every estimate, every resample and every interval is the same double as the
 * reference (test/stats/bootstrap-means.test.ts compares the two over random inputs).
 */
export function bootstrapMeans(columns: ReadonlyArray<readonly number[]>, opts: BootstrapOptions): BootstrapResult[] {
  const { resamples, confidence } = checkedOptions(opts);
  const out: BootstrapResult[] = new Array(columns.length);
  const byLength = new Map<number, number[]>();
  columns.forEach((c, j) => {
    if (c.length === 0) out[j] = { estimate: null, ci: null, resamples: 0, reason: 'no units to resample' };
    else byLength.set(c.length, [...(byLength.get(c.length) ?? []), j]);
  });
  for (const [n, all] of byLength) {
    const live: number[] = [];
    const estimates: number[] = [];
    for (const j of all) {
      const e = sum(columns[j]!) / n;
      if (Number.isFinite(e)) {
        live.push(j);
        estimates.push(e);
      } else out[j] = { estimate: null, ci: null, resamples: 0, reason: 'the statistic is undefined on the full sample' };
    }
    if (live.length === 0) continue;
    const stats = resampledMeans(
      live.map((j) => Float64Array.from(columns[j]!)),
      n,
      resamples,
      opts.seed,
    );
    live.forEach((j, c) => {
      const st = stats[c]!;
      out[j] =
        st.length < 2
          ? { estimate: estimates[c]!, ci: null, resamples: st.length, reason: 'the statistic is undefined on almost every resample' }
          : { estimate: estimates[c]!, ci: meanInterval(st, confidence), resamples: st.length };
    });
  }
  return out;
}

/**
 * Each column's finite resample means, in draw order. Four resamples are drawn at a time (their draws
 * one after another, as the reference draws them) and each column's four sums run interleaved: four
 * independent chains of additions, each still added left to right, so the processor overlaps them.
 */
function resampledMeans(values: readonly Float64Array[], n: number, resamples: number, seed: number): Float64Array[] {
  const stats = values.map(() => new Float64Array(resamples));
  const kept = new Int32Array(values.length);
  const ix = new Int32Array(4 * n);
  let state = seed >>> 0;
  const keep = (c: number, s: number) => {
    const v = s / n;
    if (Number.isFinite(v)) stats[c]![kept[c]!++] = v;
  };
  let r = 0;
  for (; r + 4 <= resamples; r += 4) {
    state = fillDraws(ix, state, n);
    for (let c = 0; c < values.length; c++) {
      const col = values[c]!;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let i = 0; i < n; i++) {
        s0 += col[ix[i]!]!;
        s1 += col[ix[n + i]!]!;
        s2 += col[ix[2 * n + i]!]!;
        s3 += col[ix[3 * n + i]!]!;
      }
      keep(c, s0);
      keep(c, s1);
      keep(c, s2);
      keep(c, s3);
    }
  }
  const one = ix.subarray(0, n);
  for (; r < resamples; r++) {
    state = fillDraws(one, state, n);
    for (let c = 0; c < values.length; c++) {
      const col = values[c]!;
      let s = 0;
      for (let i = 0; i < n; i++) s += col[one[i]!]!;
      keep(c, s);
    }
  }
  return stats.map((st, c) => st.subarray(0, kept[c]));
}

/**
 * percentile() of bootstrap.ts on resample means. A sum that starts at +0 is never -0 (+0 + -0 is +0),
 * so no mean is -0 and none is NaN: the typed array's numeric sort puts them in the very order the
 * reference's comparator sort does, several times faster.
 */
function meanInterval(stats: Float64Array, confidence: number): [number, number] {
  stats.sort();
  const alpha = 1 - confidence;
  const sorted = stats as unknown as number[];
  return [quantileSorted(sorted, alpha / 2), quantileSorted(sorted, 1 - alpha / 2)];
}

/**
 * Fills `into` with the next draws of randomInt(mulberry32(seed), n) (random.ts) from mulberry32 state
 * `a`, and returns the state after them: the same numbers as the closure, its state in a local (a plain
 * function with a local state draws about three times faster than a captured variable written per draw).
 */
function fillDraws(into: Int32Array, a: number, n: number): number {
  for (let i = 0; i < into.length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    into[i] = Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  }
  return a;
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return s;
}
