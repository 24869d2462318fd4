import { table } from '../table.ts';

/** The terminal rendering of a judge's reliability diagram (`assay calibrate --run R --judge J`; docs/grades.md). */

/** What the table reads of reliabilityDiagram's result (src/analysis/calibration/reliability.ts). */
export interface ReliabilityTableInput {
  bins: ReadonlyArray<{ lo: number; hi: number; n: number; meanConfidence: number | null; agreement: number | null }>;
  n: number;
  ece: number | null;
  /** What was left out or kept unchecked for its rubric version (label-versions.ts). */
  notes?: readonly string[];
}

const D = 3;
const num = (v: number | null): string => (v === null ? '—' : v.toFixed(D));

export function formatReliability(judge: string, r: ReliabilityTableInput): string {
  const head = `Judge ${judge}: reliability of its item confidence against the human majority (${r.n} items with a confidence and a human majority; ECE ${num(r.ece)})`;
  const notes = (r.notes ?? []).map((n) => `\n${n}`).join('');
  if (r.n === 0) return `${head}\n  — (no item verdict with a confidence and a human majority)${notes}`;
  // Equal-width bins; the last is closed so a confidence of exactly 1 has a bin.
  const rows = r.bins.map((b, i) => [`[${b.lo.toFixed(1)}, ${b.hi.toFixed(1)}${i === r.bins.length - 1 ? ']' : ')'}`, b.n, num(b.meanConfidence), num(b.agreement)]);
  return `${head}\n${table(['confidence', 'n', 'mean confidence', 'agreement'], rows)}${notes}`;
}
