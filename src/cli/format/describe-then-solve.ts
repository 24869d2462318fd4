import type { DtsGroup, DtsReport, Proportion } from '../../analysis/describe-then-solve/index.ts';
import { table, type Cell } from '../table.ts';

/** The terminal rendering of a describe-then-solve report (`assay analyze describe-then-solve`); analysis/describe-then-solve/ returns the data. */

const pct = (p: Proportion): string =>
  p.estimate === null ? '—' : `${(100 * p.estimate).toFixed(1)}% [${(100 * p.ci![0]).toFixed(1)}, ${(100 * p.ci![1]).toFixed(1)}]`;

const HEADERS = ['group', 'n', 'P(P✓)', 'P(A✓|P✓)', 'P(A✓|P✗)', 'P(A✓)', 'identity residual'];

function row(name: string, g: DtsGroup): Cell[] {
  const res = g.identity.residual;
  return [name, g.n, pct(g.perception), pct(g.answerGivenPerception), pct(g.answerGivenNoPerception), pct(g.answer), res === null ? '—' : res === 0 ? '0' : res.toExponential(1)];
}

function correlationLines(rows: [string, DtsGroup][]): string[] {
  const withCorr = rows.filter(([, g]) => g.correlation);
  if (!withCorr.length) return [];
  const r = (v: { r: number | null }) => (v.r === null ? '—' : v.r.toFixed(3));
  return [
    '',
    'Correlation of the raw perception and answer scores',
    table(['group', 'n', 'pearson', 'spearman'], withCorr.map(([name, g]) => [name, g.n, r(g.correlation!.pearson), r(g.correlation!.spearman)])),
  ];
}

/** One table: overall, each model (with its slices indented), each slice across models. */
export function formatDescribeThenSolve(report: DtsReport): string {
  const rows: [string, DtsGroup][] = [['overall', report.overall]];
  for (const [model, g] of Object.entries(report.byModel)) {
    rows.push([model, g]);
    for (const [slice, s] of Object.entries(g.bySlice)) rows.push([`  ${model} / ${slice}`, s]);
  }
  for (const [slice, g] of Object.entries(report.bySlice)) rows.push([`slice ${slice}`, g]);
  const t = report.thresholds;
  const tau = [t.perception !== null ? `perception ≥ ${t.perception}` : null, t.answer !== null ? `answer ≥ ${t.answer}` : null].filter(Boolean);
  return [
    'Describe-then-solve: estimates with 95% Wilson intervals, in %',
    ...(tau.length ? [`Thresholds: ${tau.join(', ')} counts as ok`] : []),
    '',
    table(HEADERS, rows.map(([name, g]) => row(name, g))),
    ...correlationLines(rows),
  ].join('\n');
}
