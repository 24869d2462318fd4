import type { NormalLabel } from '../../domain/labels.ts';
import { groupBy } from '../group.ts';
import { comparePair } from './compare.ts';
import type { Comparison, ItemDisagreement, LabelTable, Unit } from './types.ts';

/** A judge against each human and against the human consensus, over `units`. */
export function compareJudge(
  table: LabelTable,
  judge: string,
  consensus: ReadonlyMap<string, NormalLabel>,
  units: readonly Unit[],
): Comparison {
  const mine = table.labels.get(judge)!;
  const keys = units.map((u) => u.key);
  // Records keyed by user-given names are built with fromEntries (own properties, even for "__proto__").
  const vsHumans = Object.fromEntries(table.humans.map((h) => [h, comparePair(mine, table.labels.get(h)!, table.scale, keys)]));
  return { vsHumans, vsMajority: comparePair(mine, consensus, table.scale, keys) };
}

/** The per-item table's key: an item of a rubric (rubrics share item ids: 'sky' in ~25 ImageInWords rubrics). */
const rubricItemKey = (u: Unit): string | null => (u.item === null ? null : JSON.stringify([u.rubric, u.item]));

/**
 * Per rubric item — per (rubric, item) where the rows name the answers' rubrics — ranked by how often the
 * judge departs from the human majority: the rubric author's to-do list (an item near the top is ambiguous,
 * or the judge misreads it). Ties in the share break on more units first, then rubric and item id.
 * Numeric labels rank by mean absolute difference instead.
 */
export function itemDisagreements(
  table: LabelTable,
  judge: string,
  consensus: ReadonlyMap<string, NormalLabel>,
): ItemDisagreement[] {
  const mine = table.labels.get(judge)!;
  const rows = groupBy(table.units, rubricItemKey).map(([, units]): ItemDisagreement => {
    const { rubric, item } = units[0]! as Unit & { item: string };
    const cmp = compareJudge(table, judge, consensus, units);
    const pairs = new Map<string, { judge: string | number; majority: string | number; count: number }>();
    let n = 0;
    let differ = 0;
    for (const u of units) {
      const j = mine.get(u.key);
      const m = consensus.get(u.key);
      if (!j || !m) continue;
      n++;
      if (j.category === m.category) continue;
      differ++;
      const k = `${j.category}\u0000${m.category}`;
      const p = pairs.get(k);
      if (p) p.count++;
      else pairs.set(k, { judge: j.category, majority: m.category, count: 1 });
    }
    const top = [...pairs.values()].sort((a, b) => b.count - a.count)[0] ?? null;
    const disagreement = table.scale === 'numeric' ? (cmp.vsMajority.mae ?? null) : n ? differ / n : null;
    return {
      rubric,
      item,
      n,
      disagreements: differ,
      disagreement,
      topConfusion: table.scale === 'numeric' ? null : top,
      ...cmp,
    };
  });
  return rows.sort(
    (a, b) =>
      (b.disagreement ?? -1) - (a.disagreement ?? -1) || b.n - a.n || (a.rubric ?? '').localeCompare(b.rubric ?? '') || a.item.localeCompare(b.item),
  );
}
