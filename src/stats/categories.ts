import { badInput } from '../domain/errors.ts';
import type { Label } from './types.ts';

/**
 * Category coding shared by the agreement statistics: labels become small integers once, so the hot
 * loops index typed arrays instead of hashing labels.
 */

/** Numbers ascending (numerically, so 10 after 9), then strings in code-point order. */
export function compareLabels(x: Label, y: Label): number {
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  if (typeof x === 'number') return -1;
  if (typeof y === 'number') return 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function sortedCategories(...lists: readonly (readonly (Label | null | undefined)[])[]): Label[] {
  const seen = new Set<Label>();
  for (const list of lists) for (const v of list) if (v !== null && v !== undefined) seen.add(v);
  return [...seen].sort(compareLabels);
}

/** Index of each category; duplicate entries in an explicit list are a caller error. */
export function indexOf(categories: readonly Label[], what = 'categories'): Map<Label, number> {
  const index = new Map<Label, number>();
  categories.forEach((c, i) => {
    if (index.has(c)) throw badInput(`${what}: category ${JSON.stringify(c)} is listed twice`);
    index.set(c, i);
  });
  return index;
}

/**
 * Codes labels against an index; labels outside it get -1 (callers decide whether that means
 * "leave the pair out", as scikit-learn does with an explicit label list, or an error).
 */
export function encode(labels: readonly Label[], index: Map<Label, number>): Int32Array {
  const out = new Int32Array(labels.length);
  // Runs of equal labels are common in rating data; remembering the last one skips most hash lookups.
  let last: Label | undefined;
  let lastCode = -1;
  for (let i = 0; i < labels.length; i++) {
    const v = labels[i]!;
    if (v !== last) {
      last = v;
      lastCode = index.get(v) ?? -1;
    }
    out[i] = lastCode;
  }
  return out;
}

export function assertSameLength(a: readonly unknown[], b: readonly unknown[], what = 'ratings'): void {
  if (a.length !== b.length) throw badInput(`${what}: the two raters have ${a.length} and ${b.length} labels (need one per item)`);
}
