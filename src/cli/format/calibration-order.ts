import type { OrderSensitivity } from '../../analysis/calibration/order-sensitivity.ts';
import { table } from '../table.ts';

/** The terminal rendering of a shuffled panel's order sensitivity (`assay calibrate --run R --judge PANEL`; docs/panels.md). */

const D = 3;
const num = (v: number | null): string => (v === null ? '—' : v.toFixed(D));

export function formatOrderSensitivity(panel: string, o: OrderSensitivity): string {
  const pct = Math.round(o.confidence * 100);
  const head =
    `Panel ${panel}: order sensitivity (mean absolute difference of completeness between one member's shuffled samples of an answer, ` +
    `averaged over answers; ${pct}% bootstrap interval over answers, seed ${o.seed}; ${o.grades} shuffled grades)`;
  const rows = o.members.map((m) => [m.judge, m.answers, m.pairs, num(m.meanAbsDifference), m.ci ? `[${num(m.ci[0])}, ${num(m.ci[1])}]` : `— (${m.reason ?? 'no interval'})`]);
  return `${head}\n${table(['member', 'answers', 'pairs', 'mean |Δ completeness|', `${pct}% CI`], rows)}`;
}
