import type { LabelScale } from '../../domain/labels.ts';
import { bootstrapClustered } from '../../stats/bootstrap.ts';
import { krippendorffAlpha } from '../../stats/krippendorff.ts';
import type { AlphaStat, LabelTable, Unit } from './types.ts';

/**
 * Level of measurement per scale. Verdicts are ordinal on their points (correct 1 > partial 0.5 >
 * incorrect = missing 0): two humans saying incorrect and missing agree on what the answer earns.
 */
const LEVEL: Readonly<Record<LabelScale, { level: AlphaStat['level']; order?: readonly number[] }>> = {
  verdict: { level: 'ordinal', order: [0, 0.5, 1] },
  binary: { level: 'nominal' },
  numeric: { level: 'interval' },
};

const RESAMPLES = 1000;

/**
 * Krippendorff's alpha among `raters` over the units, with a 95% bootstrap interval that resamples
 * whole answers (the items of one answer are labelled together and are not independent).
 */
export function raterAlpha(table: LabelTable, raters: string[], seed: number): AlphaStat {
  const { level, order } = LEVEL[table.scale];
  if (raters.length < 2) return { alpha: null, level, ci: null, units: 0, raters, reason: `needs at least two raters, have ${raters.length}` };
  const valueOf = (r: string, u: Unit): number | null => table.labels.get(r)?.get(u.key)?.value ?? null;
  const categoryOf = (r: string, u: Unit): string | number | null => table.labels.get(r)?.get(u.key)?.category ?? null;
  const cell = table.scale === 'binary' ? categoryOf : valueOf;
  const alphaOf = (units: readonly Unit[]) =>
    krippendorffAlpha(
      raters.map((r) => units.map((u) => cell(r, u))),
      level,
      order ? { order } : undefined,
    );

  const point = alphaOf(table.units);
  const out: AlphaStat = { alpha: point.alpha, level, ci: null, units: point.pairable, raters };
  if (point.alpha === null) {
    out.reason = point.reason ?? 'undefined';
    return out;
  }
  const boot = bootstrapClustered(table.units, (u) => u.answer, (units) => alphaOf(units).alpha, {
    seed,
    resamples: RESAMPLES,
    confidence: 0.95,
  });
  out.ci = boot.ci;
  return out;
}
