import type { HumansMode } from '../../domain/campaigns.ts';
import { SCALES, type LabelRow, type LabelScale, type NormalLabel } from '../../domain/labels.ts';

/**
 * The human side of a calibration report (pure): `each` annotator as a rater; their `majority` per unit
 * as one rater "majority" (the label most gave, a tie for the top leaves the unit out; the mean on the
 * numeric scale); or `adjudicated` as one rater "adjudicated": an adjudicator's final label where there
 * is one, else the majority. Judge rows pass through unchanged.
 */

/** An adjudicator's final label of a unit, keyed as the rows are (answer, item absent for the whole answer). */
export interface FinalLabel {
  answer: string;
  item?: string;
  label: string;
}

const unitKey = (answer: string, item: string | undefined) => `${answer}\u0000${item ?? ''}`;

function normal(scale: LabelScale | undefined, label: LabelRow['label']): NormalLabel | null {
  if (scale) return SCALES[scale].normalise(label);
  const s = String(label).trim().toLowerCase();
  return { category: s, value: Number.NaN };
}

function majority(scale: LabelScale | undefined, given: readonly LabelRow[]): LabelRow['label'] | null {
  const labels = given.flatMap((r) => {
    const n = normal(scale, r.label);
    return n ? [{ row: r, n }] : [];
  });
  if (labels.length === 0) return null;
  if (scale === 'numeric') return labels.reduce((s, l) => s + l.n.value, 0) / labels.length;
  const votes = new Map<string | number, { label: LabelRow['label']; count: number }>();
  for (const l of labels) {
    const v = votes.get(l.n.category);
    if (v) v.count++;
    else votes.set(l.n.category, { label: l.row.label, count: 1 });
  }
  const ranked = [...votes.values()].sort((a, b) => b.count - a.count);
  return ranked.length > 1 && ranked[0]!.count === ranked[1]!.count ? null : ranked[0]!.label;
}

export function applyHumans(rows: readonly LabelRow[], mode: HumansMode, finals: readonly FinalLabel[], scale?: LabelScale): LabelRow[] {
  if (mode === 'each') return [...rows];
  const out = rows.filter((r) => r.kind !== 'human');
  const units = new Map<string, LabelRow[]>();
  for (const r of rows) {
    // A label off the report's scale (an item verdict in a binary report) is no unit of it.
    if (r.kind !== 'human' || normal(scale, r.label) === null) continue;
    const k = unitKey(r.answer, r.item);
    units.set(k, [...(units.get(k) ?? []), r]);
  }
  const onScale = finals.filter((f) => normal(scale, f.label) !== null);
  const final = new Map(mode === 'adjudicated' ? onScale.map((f) => [unitKey(f.answer, f.item), f.label]) : []);
  for (const [k, given] of units) {
    const label = final.get(k) ?? majority(scale, given);
    if (label === null) continue;
    const first = given[0]!;
    out.push({ answer: first.answer, ...(first.rubric !== undefined ? { rubric: first.rubric } : {}), ...(first.item !== undefined ? { item: first.item } : {}), ...(first.model !== undefined ? { model: first.model } : {}), rater: mode, kind: 'human', label });
  }
  return out;
}
