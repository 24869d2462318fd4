import type { LabelScale, NormalLabel } from '../../domain/labels.ts';
import { bootstrapCI } from '../../stats/bootstrap.ts';
import { krippendorffAlpha } from '../../stats/krippendorff.ts';
import { comparePair, POINT_LEVELS } from './compare.ts';
import { alphaFromSums, clusterSums, sumAll, type SumsLevel } from './alpha-sums.ts';
import { humanConsensus } from './consensus.ts';
import type { AlphaStat, LabelTable, PairStats } from './types.ts';

/**
 * Level of measurement per scale, and the cell each label contributes. Verdicts are ordinal on their
 * points (correct 1 > partial 0.5 > incorrect = missing 0): two people saying incorrect and missing
 * agree on what the answer earns.
 */
const LEVEL: Readonly<Record<LabelScale, { level: SumsLevel; values: readonly (string | number)[] | null; cell(l: NormalLabel): string | number }>> = {
  verdict: { level: 'ordinal', values: POINT_LEVELS, cell: (l) => l.value },
  binary: { level: 'nominal', values: ['true', 'false'], cell: (l) => l.category },
  numeric: { level: 'interval', values: null, cell: (l) => l.value },
};

const RESAMPLES = 1000;

/**
 * Krippendorff's alpha among `raters` over the units (stats/krippendorff), with a 95% percentile
 * bootstrap interval that resamples whole answers: the items of one answer are labelled together and
 * are not independent.
 */
export function raterAlpha(table: LabelTable, raters: string[], seed: number): AlphaStat {
  const { level, values, cell } = LEVEL[table.scale];
  if (raters.length < 2) return { alpha: null, level, ci: null, units: 0, raters, reason: `needs at least two raters, have ${raters.length}` };
  const cells = table.units.map((u) => raters.map((r) => {
    const l = table.labels.get(r)?.get(u.key);
    return l ? cell(l) : null;
  }));
  const point = krippendorffAlpha(
    raters.map((_, r) => cells.map((c) => c[r]!)),
    level,
    values && level === 'ordinal' ? { order: values } : undefined,
  );
  const out: AlphaStat = { alpha: point.alpha, level, ci: null, units: point.pairable, raters };
  if (point.alpha === null) {
    out.reason = point.reason ?? 'undefined';
    return out;
  }

  // Categorical cells become value indices; interval values are centred so the sums keep their precision.
  const numeric = cells.flat().filter((c): c is number => typeof c === 'number');
  const mean = level === 'interval' ? numeric.reduce((a, b) => a + b, 0) / numeric.length : 0;
  const code = (c: string | number | null): number | null =>
    c === null ? null : values ? values.indexOf(c) : (c as number) - mean;
  const V = values ? values.length : 0;
  const clusters = clusterSums(
    level,
    V,
    table.units.map((u, i) => ({ cluster: u.answer, cells: cells[i]!.map(code) })),
  );
  const boot = bootstrapCI(clusters, (sample) => alphaFromSums(sumAll(sample, V), level, V), {
    seed,
    resamples: RESAMPLES,
    confidence: 0.95,
  });
  out.ci = boot.ci;
  if (!boot.ci && boot.reason) out.reason = `no interval: ${boot.reason}`;
  return out;
}

/**
 * Leave one annotator out: each human against the consensus of the other humans (the same rule as the
 * judges' reference: majority, ties excluded; numeric: the mean), over the units that human labelled.
 * This is the distribution "within human range" is read from (trust.ts): one careless annotator is
 * one low value in it, where in alpha or in pooled pairwise agreement they drag every figure down.
 * Needs at least two humans; with exactly two, each is compared with the other.
 */
export function leaveOneAnnotatorOut(table: LabelTable): Record<string, PairStats> {
  if (table.humans.length < 2) return {};
  return Object.fromEntries(
    table.humans.map((h) => {
      const others = humanConsensus({ ...table, humans: table.humans.filter((x) => x !== h) });
      return [h, comparePair(table.labels.get(h)!, others.labels, table.scale)];
    }),
  );
}
