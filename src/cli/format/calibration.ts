import type { AlphaStat, CalibrationReport, Comparison, JudgeReport, PairStats, TrustReading } from '../../analysis/calibration/index.ts';
import { table, type Cell } from '../table.ts';

/** The terminal rendering of a calibration report (`assay calibrate`); analysis/calibration/ returns the data. */

const D = 3;
const num = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : v.toFixed(D));
const ci = (c: [number, number] | null | undefined): string => (c ? `[${num(c[0])}, ${num(c[1])}]` : '—');

/** Table columns per scale: kappa family on categorical scales, correlations on numeric. */
function pairColumns(scale: CalibrationReport['scale']): { headers: string[]; cells(p: PairStats): Cell[] } {
  if (scale === 'numeric') {
    return {
      headers: ['n', 'pearson', '95% CI', 'spearman', 'bias', 'MAE'],
      cells: (p) => [p.n, num(p.pearson?.r), ci(p.pearson?.ci), num(p.spearman?.r), num(p.bias), num(p.mae)],
    };
  }
  const weighted = scale === 'verdict';
  return {
    headers: ['n', 'agreement', 'kappa', '95% CI', ...(weighted ? ['w. kappa', '95% CI'] : []), 'bias'],
    cells: (p) => [
      p.n,
      num(p.agreement),
      num(p.kappa?.kappa),
      ci(p.kappa?.ci),
      ...(weighted ? [num(p.weightedKappa?.kappa), ci(p.weightedKappa?.ci)] : []),
      num(p.bias),
    ],
  };
}

const indent = (s: string): string => s.replace(/^/gm, '  ');

/** The human reference row: the majority label, or the mean value on the numeric scale. */
const reference = (scale: CalibrationReport['scale']): string => (scale === 'numeric' ? 'human mean' : 'majority');

function alphaLine(a: AlphaStat): string {
  const v = a.alpha === null ? `— (${a.reason})` : `${num(a.alpha)} ${ci(a.ci)}`;
  return `Krippendorff alpha (${a.level}) among ${a.raters.join(', ')}: ${v}, ${a.units} pairable units`;
}

function pairsTable(report: CalibrationReport, pairs: Record<string, PairStats>, first: string): string {
  const cols = pairColumns(report.scale);
  return table([first, ...cols.headers], Object.entries(pairs).map(([k, p]) => [k, ...cols.cells(p)]), D);
}

function comparisonRows(report: CalibrationReport, c: Comparison): Cell[][] {
  const cols = pairColumns(report.scale);
  return [...Object.entries(c.vsHumans).map(([h, p]) => [h, ...cols.cells(p)]), [reference(report.scale), ...cols.cells(c.vsMajority)]];
}

function confusionTable(p: PairStats): string {
  const c = p.confusion!;
  return table(
    ['judge \\ majority', ...c.categories.map(String)],
    c.matrix.map((row, i) => [String(c.categories[i]), ...row]),
  );
}

const STAT_NAME: Readonly<Record<TrustReading['statistic'], string>> = { weightedKappa: 'weighted kappa', kappa: 'kappa', pearson: 'Pearson r' };

function trustLine(t: TrustReading, scale: CalibrationReport['scale']): string {
  const judge = `${STAT_NAME[t.statistic]} vs ${reference(scale)} ${num(t.value)} ${ci(t.ci)}`;
  if (t.withinHumanRange === null) return `  Reading: ${judge}; no verdict (${t.reason})`;
  // The bar is the median annotator against the others (analysis/calibration/trust.ts), not alpha.
  const humans = `the human level ${num(t.humanLevel)} (median of ${t.humans.length} annotators, each against the majority of the others)`;
  return t.withinHumanRange
    ? `  Reading: ${judge} reaches ${humans}: within the range of human agreement`
    : `  Reading: ${judge} stays below ${humans}: the judge agrees with people less than they agree with each other`;
}

function judgeSection(report: CalibrationReport, j: JudgeReport): string {
  const cols = pairColumns(report.scale);
  const ref = report.scale === 'numeric' ? 'human mean' : 'human majority';
  const parts = [
    `Judge ${j.rater} (${j.units} units labelled)`,
    indent(table(['against', ...cols.headers], comparisonRows(report, j), D)),
    trustLine(j.trust, report.scale),
  ];
  if (j.vsMajority.confusion) parts.push('', `  Confusion against the ${ref} (rows: judge, columns: majority)`, indent(confusionTable(j.vsMajority)));
  const models = Object.entries(j.byModel);
  if (models.length) {
    parts.push('', `  By graded model (against the ${ref})`);
    parts.push(indent(table(['model', ...cols.headers], models.map(([m, c]) => [m, ...cols.cells(c.vsMajority)]), D)));
  }
  if (j.byItem.length) {
    parts.push('', `  By rubric item, most disagreement with the ${ref} first`);
    // Rows that name their rubric are per (rubric, item): rubrics share item ids, so the rubric is shown
    // with the item, in the one left-aligned column.
    const rubric = j.byItem.some((it) => it.rubric !== null);
    const key = (it: (typeof j.byItem)[number]): Cell[] => [rubric ? `${it.rubric ?? '—'}/${it.item}` : it.item];
    const header = [rubric ? 'rubric/item' : 'item', ...(report.scale === 'numeric' ? ['n', 'MAE', 'bias'] : ['n', 'disagree', 'share', 'kappa', 'commonest (judge → majority)'])];
    const rows = j.byItem.map((it): Cell[] =>
      report.scale === 'numeric'
        ? [...key(it), it.n, num(it.disagreement), num(it.vsMajority.bias)]
        : [
            ...key(it),
            it.n,
            it.disagreements,
            num(it.disagreement),
            num(it.vsMajority.kappa?.kappa),
            it.topConfusion ? `${it.topConfusion.judge} → ${it.topConfusion.majority} ×${it.topConfusion.count}` : '',
          ],
    );
    parts.push(indent(table(header, rows, D)));
  }
  const a = j.answers;
  parts.push(
    '',
    `  Answer scores rolled up from items (${a.weighted ? 'weighted' : 'unweighted'} mean of ${report.scale === 'numeric' ? 'values' : 'points'}), judge vs ${ref}, ${a.n} answers`,
    a.reason
      ? `  — (${a.reason})`
      : indent(
          table(
            ['pearson', '95% CI', 'spearman', 'bias', 'MAE'],
            [[num(a.pearson.r), ci(a.pearson.ci), num(a.spearman.r), num(a.bias), num(a.mae)]],
            D,
          ),
        ),
  );
  return parts.join('\n');
}

/** The readable calibration report: ceiling first, then one section per judge, then judge–judge. */
export function formatCalibration(report: CalibrationReport): string {
  const r = report;
  const head = [
    `Calibration on the ${r.scale} scale: ${r.units} units (${r.answers} answers${r.items ? `, ${r.items} items` : ''}${r.models.length ? `, models ${r.models.join(', ')}` : ''})`,
    `Humans: ${r.humans.join(', ')}; judges: ${r.judges.length ? r.judges.join(', ') : 'none'}`,
    `Human reference: ${r.consensus}`,
    r.scale === 'numeric' ? `  ${r.majority.units} units with a human value` : `  ${r.majority.units} units with a majority, ${r.majority.ties} ties (excluded)`,
  ];
  const sections = [head.join('\n')];
  const ceiling = [`Human–human ceiling`, `  ${alphaLine(r.humanCeiling.alpha)}`];
  if (Object.keys(r.humanCeiling.pairs).length) ceiling.push(indent(pairsTable(r, r.humanCeiling.pairs, 'humans')));
  sections.push(ceiling.join('\n'));
  for (const j of r.judgeReports) sections.push(judgeSection(r, j));
  if (r.judgeJudge) {
    sections.push([`Judge–judge agreement`, `  ${alphaLine(r.judgeJudge.alpha)}`, indent(pairsTable(r, r.judgeJudge.pairs, 'judges'))].join('\n'));
  }
  if (r.notes.length) sections.push(['Notes', ...r.notes.map((n) => `  - ${n}`)].join('\n'));
  return sections.join('\n\n');
}
