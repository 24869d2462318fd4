/** Shared vocabulary of the stats module. */

/** A category label as raters write it: strings and numbers are distinct (1 !== '1'). */
export type Label = string | number;

/** An undefined statistic: the value is null and the reason says why (never NaN). */
export interface Undefined {
  value: null;
  reason: string;
}

/** A finite number, or null (NaN and ±Infinity never leave this module). */
export const finiteOrNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** Two-sided interval with its ends as a tuple. */
export type Interval = [number, number];
