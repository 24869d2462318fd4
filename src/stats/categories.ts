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

/** Labels are strings or finite numbers (NaN would never equal itself, so it could not be counted). */
export function checkLabel(v: unknown): asserts v is Label {
  if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return;
  throw badInput(`labels: ${v === null ? 'null' : typeof v === 'number' ? String(v) : JSON.stringify(v) ?? String(v)} is not a label (expected a string or a finite number)`);
}

/**
 * Numbers and strings never share a label set: 1 and "1" would be two categories that can never agree
 * (the silent kappa 0 of issue 11). Callers that read files convert plain integer strings first
 * (label-types.ts); here any mix is a caller error.
 */
export function assertOneLabelType(labels: Iterable<Label>, what = 'labels'): void {
  let number: Label | undefined;
  let text: Label | undefined;
  for (const v of labels) {
    if (typeof v === 'number') number ??= v;
    else text ??= v;
    if (number !== undefined && text !== undefined) {
      const same = String(number) === text ? ', which differ only by type' : '';
      throw badInput(`${what}: labels mix numbers and text (${number} and ${JSON.stringify(text)}${same}); use one type for every label`);
    }
  }
}

/**
 * Weights and ordinal distances need an order, and text has none of its own: sorted by code point,
 * low/medium/high would read high < low < medium and score a near miss as a far one (quadratic kappa
 * −0.2857 for 0.5714 on docs/statistics.md's example), exit 0. Numbers keep their numeric order; text
 * needs the caller's list. `how` says where that list goes ("give --categories FILE").
 */
export function requireOrderOfText(labels: Iterable<Label | null>, need: string, how: string): void {
  const text = new Set<string>();
  for (const v of labels) if (typeof v === 'string') text.add(v);
  if (text.size === 0) return;
  const shown = [...text].sort(compareLabels);
  const list = shown.length > 8 ? `${shown.slice(0, 8).join(', ')}, …` : shown.join(', ');
  throw badInput(`${need}: the labels are text (${list}), which has no order of its own; ${how} listing them from lowest to highest`);
}

/** Index of each category; duplicate entries in an explicit list are a caller error. */
export function indexOf(categories: readonly Label[], what = 'categories'): Map<Label, number> {
  const index = new Map<Label, number>();
  categories.forEach((c, i) => {
    checkLabel(c);
    if (index.has(c)) throw badInput(`${what}: category ${JSON.stringify(c)} is listed twice`);
    index.set(c, i);
  });
  return index;
}

/**
 * Label → small integer, in first-seen order (or a fixed list). Rating data has a handful of categories,
 * where comparing against each known label beats hashing; past SMALL labels a Map takes over.
 */
const SMALL = 16;

export class LabelCoder {
  readonly labels: Label[] = [];
  private map: Map<Label, number> | null = null;
  private last: Label | undefined;
  private lastCode = -1;

  constructor(
    fixed?: readonly Label[],
    private readonly grow = fixed === undefined,
  ) {
    if (fixed) for (const v of fixed) this.add(v);
  }

  private add(v: Label): number {
    checkLabel(v);
    const c = this.labels.length;
    this.labels.push(v);
    if (this.map) this.map.set(v, c);
    else if (this.labels.length > SMALL) this.map = new Map(this.labels.map((l, i) => [l, i]));
    return c;
  }

  /** The code of v; new labels are added when the coder grows, otherwise they get -1. */
  code(v: Label): number {
    if (v === this.last) return this.lastCode;
    let c = -1;
    if (this.map) c = this.map.get(v) ?? -1;
    else {
      const labels = this.labels;
      for (let i = 0; i < labels.length; i++) {
        if (labels[i] === v) {
          c = i;
          break;
        }
      }
    }
    if (c < 0 && this.grow) c = this.add(v);
    this.last = v;
    this.lastCode = c;
    return c;
  }
}

export function assertSameLength(a: readonly unknown[], b: readonly unknown[], what = 'ratings'): void {
  if (a.length !== b.length) throw badInput(`${what}: the two raters have ${a.length} and ${b.length} labels (need one per item)`);
}
