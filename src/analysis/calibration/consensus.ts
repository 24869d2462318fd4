import type { NormalLabel } from '../../domain/labels.ts';
import type { LabelTable, Unit } from './types.ts';

export interface Consensus {
  labels: Map<string, NormalLabel>;
  tied: Unit[];
  /** Units only one human labelled (their label is the consensus). */
  singleRater: number;
  description: string;
}

/**
 * The human reference per unit. Categorical scales: the label most humans gave; a tie for the top
 * (e.g. one human says partial, the other correct) has no majority and the unit is left out of every
 * "vs majority" figure (counted in `ties`) rather than broken arbitrarily. Numeric scale: the mean.
 */
export function humanConsensus(table: LabelTable): Consensus {
  const labels = new Map<string, NormalLabel>();
  const tied: Unit[] = [];
  let singleRater = 0;
  for (const unit of table.units) {
    const given = table.humans.flatMap((h) => {
      const l = table.labels.get(h)?.get(unit.key);
      return l ? [l] : [];
    });
    if (given.length === 0) continue;
    if (given.length === 1) singleRater++;
    if (table.scale === 'numeric') {
      const mean = given.reduce((s, l) => s + l.value, 0) / given.length;
      labels.set(unit.key, { category: mean, value: mean });
      continue;
    }
    const votes = new Map<string | number, { label: NormalLabel; count: number }>();
    for (const l of given) {
      const v = votes.get(l.category);
      if (v) v.count++;
      else votes.set(l.category, { label: l, count: 1 });
    }
    const ranked = [...votes.values()].sort((a, b) => b.count - a.count);
    if (ranked.length > 1 && ranked[0]!.count === ranked[1]!.count) tied.push(unit);
    else labels.set(unit.key, ranked[0]!.label);
  }
  const description =
    table.scale === 'numeric'
      ? 'mean of the human values per unit'
      : 'label given by most humans per unit; units where the top labels tie are excluded';
  return { labels, tied, singleRater, description };
}
