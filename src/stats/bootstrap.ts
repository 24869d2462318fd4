import { badInput } from '../domain/errors.ts';
import { quantileSorted } from 'simple-statistics';
import { checkConfidence } from './normal.ts';
import { mulberry32, randomInt } from './random.ts';

/**
 * Seeded percentile bootstrap. Resampling is over whole units (answers, items, subjects): the unit must
 * be the thing that was sampled independently, or the interval comes out too narrow.
 */
export interface BootstrapOptions {
  seed: number;
  /** Resamples drawn; default 2000. */
  resamples?: number;
  /** Two-sided confidence; default 0.95. */
  confidence?: number;
}

export interface BootstrapResult {
  estimate: number | null;
  ci: [number, number] | null;
  /** Resamples on which the statistic was defined (those returning null are left out). */
  resamples: number;
  reason?: string;
}

function percentile(values: number[], confidence: number): [number, number] {
  values.sort((x, y) => x - y);
  const alpha = 1 - confidence;
  // simple-statistics' quantileSorted interpolates between order statistics.
  return [quantileSorted(values, alpha / 2), quantileSorted(values, 1 - alpha / 2)];
}

/** The resamples and confidence of `opts` with their defaults, or bad input naming the wrong one. */
export function checkedOptions(opts: BootstrapOptions): { resamples: number; confidence: number } {
  const resamples = opts.resamples ?? 2000;
  const confidence = opts.confidence ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) throw badInput(`resamples must be a whole number ≥ 1, got ${resamples}`);
  checkConfidence(confidence);
  if (!Number.isFinite(opts.seed)) throw badInput(`seed must be a number, got ${opts.seed}`);
  return { resamples, confidence };
}

function run<G>(
  groups: readonly G[],
  statistic: (sample: readonly G[]) => number | null,
  full: number | null,
  opts: BootstrapOptions,
): BootstrapResult {
  const { resamples, confidence } = checkedOptions(opts);
  if (groups.length === 0) return { estimate: null, ci: null, resamples: 0, reason: 'no units to resample' };
  const estimate = full !== null && Number.isFinite(full) ? full : null;
  if (estimate === null) return { estimate: null, ci: null, resamples: 0, reason: 'the statistic is undefined on the full sample' };
  const rng = mulberry32(opts.seed);
  const stats: number[] = [];
  const sample: G[] = new Array(groups.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < groups.length; i++) sample[i] = groups[randomInt(rng, groups.length)]!;
    const v = statistic(sample);
    if (v !== null && Number.isFinite(v)) stats.push(v);
  }
  if (stats.length < 2) return { estimate, ci: null, resamples: stats.length, reason: 'the statistic is undefined on almost every resample' };
  return { estimate, ci: percentile(stats, confidence), resamples: stats.length };
}

/** Percentile interval of `statistic` over resamples of `units` drawn with replacement. */
export function bootstrapCI<T>(
  units: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  opts: BootstrapOptions,
): BootstrapResult {
  return run(units, statistic, units.length > 0 ? statistic(units) : null, opts);
}

/**
 * Cluster bootstrap: resamples whole clusters (e.g. every rubric-item label of one answer together), so
 * labels that share an answer are not treated as independent.
 */
export function bootstrapClustered<T>(
  units: readonly T[],
  clusterOf: (unit: T) => string | number,
  statistic: (sample: readonly T[]) => number | null,
  opts: BootstrapOptions,
): BootstrapResult {
  const byCluster = new Map<string | number, T[]>();
  for (const u of units) {
    const key = clusterOf(u);
    const list = byCluster.get(key);
    if (list) list.push(u);
    else byCluster.set(key, [u]);
  }
  const clusters = [...byCluster.values()];
  return run(clusters, (sample) => statistic(sample.flat()), units.length > 0 ? statistic(units) : null, opts);
}
