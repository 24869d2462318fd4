import type { Row } from './table.tsx';
import { interval, num } from './format.ts';

/**
 * Small-n cells. A mean or a share resting on fewer than SMALL_N answers is shown with its n and without
 * an interval: a percentile bootstrap over one answer gives "0.822 [0.822, 0.822]" (certainty it does
 * not have), over two to four it gives little more than the range of the values; so the page says
 * "n = 2" instead and the charts draw such a point hollow, with no bar. The downloads keep every number.
 */
export const SMALL_N = 5;

export const isSmallN = (n: unknown): boolean => typeof n === 'number' && n > 0 && n < SMALL_N;

export const SMALL_N_RULE = `Cells marked “n = k” rest on fewer than ${SMALL_N} observations (answers; labelled units on the calibration page): they show the value without an interval (an interval from so few answers describes the method, not the data), and charts draw them as hollow dots without a bar.`;

/**
 * A column's render for a value with [low, high] (`${key}Low`, `${key}High`) whose n is `n(row)`
 * (a count column of the row, or a number): the interval at n ≥ SMALL_N, "value n = k" below.
 */
export function ciOrSmallN(key: string, n: string | ((row: Row) => unknown)) {
  return (row: Row) => {
    const v: unknown = row[key];
    const count = typeof n === 'string' ? row[n] : n(row);
    if (v === null || v === undefined) return num(v);
    if (isSmallN(count)) {
      return (
        <span class="small-n" title={`only ${String(count)} answer${count === 1 ? '' : 's'}: no interval`}>
          {num(v)} <small>n = {String(count)}</small>
        </span>
      );
    }
    const ci = interval(row[`${key}Low`], row[`${key}High`]);
    return ci ? `${num(v)} ${ci}` : num(v);
  };
}

export function SmallNNote() {
  return <p class="note small-n-rule">{SMALL_N_RULE}</p>;
}
