import type { CalibrationReport, KappaStat, PairStats } from '../analysis/calibration/index.ts';
import type { Database } from '../db/client.ts';
import { isAssayError } from '../domain/errors.ts';
import type { ItemInstability } from '../scoring/panel/index.ts';
import { runInThread, taskModule } from '../threads/pool.ts';
import { loadRunCalibration } from './grading/calibration-labels.ts';
import { loadOrderSensitivity } from './grading/calibration-order.ts';
import { loadReliability } from './grading/calibration-reliability.ts';
import type { OrderSensitivity } from '../analysis/calibration/order-sensitivity.ts';
import { cachedReport, memoLast, reportKey } from './report-cache.ts';
import { LEXICAL_BASELINE_NOTE } from './report-data.ts';
import { rowsOfScale } from './web-calibration.ts';

const REPORT_TASKS = taskModule('report-tasks', import.meta.url);

/**
 * The calibration page's panel section (docs/web-pages.md#a-panel-judge): for one panel judge and one
 * run, the figures `assay calibrate --run R --judge PANEL` reports — the panel and each member against
 * the human majority, each member against the vote, the panel's item instability — read through the same
 * service verb (loadRunCalibration) and the same pure calibration, on the verdict scale — and its
 * reliability diagram (grading/calibration-reliability.ts loadReliability: the panel's item confidences
 * against the human majority, 10 equal-width bins).
 */

/** One judge against another rater over the units both labelled: what the page's kappa columns show. */
export interface PairFigures {
  n: number;
  agreement: number | null;
  kappa: KappaStat | null;
  weightedKappa: KappaStat | null;
  reason: string | null;
}

export interface PanelCalibrationChoice {
  /** Panel judges that graded (ok) an answer some human labelled, each with those answers' runs, most labelled answers first. */
  panels: Array<{ panel: string; runs: string[] }>;
  panel: string | null;
  run: string | null;
}

export interface PanelCalibration extends PanelCalibrationChoice {
  /** Why no figures are shown (no panel, an unknown one, no human labels in the run). */
  reason?: string;
  members: string[];
  /** The baseline note when every member is the lexical baseline (such a panel is a floor too). */
  note: string | null;
  /** Labelled units (answer × item) and answers of the run the report covers, and its human raters. */
  units: number;
  answers: number;
  humans: string[];
  /** The panel first, then each member, against the human majority. */
  vsHumans: Array<PairFigures & { judge: string; role: 'panel' | 'member' }>;
  /** Each member against the panel's vote (judge against judge, over every unit both labelled). */
  vsVote: Array<PairFigures & { member: string }>;
  /** Per rubric item: share of ok samples, pooled over the run's quorate panel grades, disagreeing with the vote. */
  instability: ItemInstability[];
  /** The reliability diagram over the run (confidence bins against agreement with the human majority); null with a reason when there is none. */
  reliability: ReliabilityFigures | null;
  reliabilityReason?: string;
  /** A shuffled panel's order sensitivity over the run (what `assay calibrate` reports); null unless the panel shuffles and recorded item orders. */
  orderSensitivity: OrderSensitivity | null;
  /** The run's answers a member was shown as examples, left out of the panel's and the members' figures (`assay calibrate` says it too). */
  excludedExamples: number;
}

/** Why the run's voted items are not points of the diagram, by reason (loadReliability's leftOut). */
export interface ReliabilityLeftOut {
  noConfidence: number;
  noHumanLabel: number;
  humanTie: number;
  humanNotAVerdict: number;
  /** Items of answers a member was shown as examples (calibration-reliability.ts). */
  examples?: number;
}

export interface ReliabilityFigures {
  bins: Array<{ lo: number; hi: number; n: number; meanConfidence: number | null; agreement: number | null }>;
  /** Items binned: a confidence and a human majority both. */
  n: number;
  leftOut: ReliabilityLeftOut;
  /** What was left out or kept unchecked for its rubric version (label-versions.ts). */
  notes: string[];
  /** Expected calibration error: Σ over bins of n_bin / n × |agreement − mean confidence|. */
  ece: number | null;
}

const figures = (p: PairStats | undefined): PairFigures => ({
  n: p?.n ?? 0,
  agreement: p?.agreement ?? null,
  kappa: p?.kappa ?? null,
  weightedKappa: p?.weightedKappa ?? null,
  reason: p?.reason ?? p?.kappa?.reason ?? null,
});

/** The pair `a ~ b` of a judge-against-judge table, in whichever order calibration named it. */
const pairOf = (pairs: Record<string, PairStats>, a: string, b: string): PairStats | undefined => pairs[`${a} ~ ${b}`] ?? pairs[`${b} ~ ${a}`];

async function panelChoices(database: Database): Promise<PanelCalibrationChoice['panels']> {
  const r = await database.execute(
    `select j.slug as panel, r.name as run, count(distinct a.id)::int as n
       from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id join runs r on r.id = a.run_id
      where j.provider = 'panel' and g.status = 'ok' and exists (select 1 from labels l where l.answer_id = a.id and l.kind = 'human')
      group by j.slug, r.name order by j.slug, n desc, r.name`,
  );
  const out = new Map<string, string[]>();
  for (const row of r.rows as Array<{ panel: string; run: string }>) out.set(String(row.panel), [...(out.get(String(row.panel)) ?? []), String(row.run)]);
  return [...out].map(([panel, runs]) => ({ panel, runs }));
}

/**
 * Which panel and run the section shows: the ones asked for, else (a panel) the page's judge when it is
 * a panel, else the first panel; (a run) its run with most labelled answers graded, ties by name.
 */
export function choosePanel(panels: PanelCalibrationChoice['panels'], ask: { panel?: string; judge?: string; run?: string }): { panel: string | null; run: string | null; reason?: string } {
  const byName = new Map(panels.map((p) => [p.panel, p.runs]));
  const panel = ask.panel ?? (ask.judge !== undefined && byName.has(ask.judge) ? ask.judge : panels[0]?.panel);
  if (panel === undefined) return { panel: null, run: null, reason: 'No panel judge has graded an answer that humans labelled' };
  const runs = byName.get(panel);
  if (!runs) return { panel, run: null, reason: `'${panel}' is not a panel judge that graded an answer humans labelled` };
  const run = ask.run ?? runs[0]!;
  if (!runs.includes(run)) return { panel, run, reason: `panel '${panel}' graded no answer of run '${run}' that humans labelled` };
  return { panel, run };
}

async function baselineNote(database: Database, members: readonly string[]): Promise<string | null> {
  if (members.length === 0) return null;
  const r = await database.execute(`select distinct provider from judges where slug = any($1::text[])`, [[...members]]);
  const providers = r.rows.map((x) => String(x.provider));
  return providers.length > 0 && providers.every((p) => p === 'lexical') ? LEXICAL_BASELINE_NOTE : null;
}

/** The left-out counts in words, the non-zero ones. */
export function leftOutText(l: ReliabilityLeftOut): string {
  const parts = [
    [l.noConfidence, 'without a confidence'],
    [l.noHumanLabel, 'without a human label'],
    [l.humanTie, 'whose human labels tie'],
    [l.humanNotAVerdict, 'with a human label that is not a verdict'],
    [l.examples ?? 0, 'of answers a member was shown as examples'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`);
  return said.length ? `left out: ${said.join(', ')}` : 'no voted item';
}

const EMPTY = { members: [], note: null, units: 0, answers: 0, humans: [], vsHumans: [], vsVote: [], instability: [], reliability: null, orderSensitivity: null, excludedExamples: 0 };

/** The section's figures; cached per data version and request (the calibration's bootstraps run on the report thread). */
export async function pagePanelCalibration(database: Database, ask: { panel?: string; judge?: string; run?: string; seed?: number }): Promise<PanelCalibration> {
  const seed = ask.seed ?? 1;
  return cachedReport(database, reportKey('page-calibration-panel', { ...ask, seed }), async () => {
    const panels = await panelChoices(database);
    const chosen = choosePanel(panels, ask);
    const base = { panels, panel: chosen.panel, run: chosen.run };
    if (chosen.reason !== undefined || chosen.panel === null || chosen.run === null) return { ...base, ...EMPTY, reason: chosen.reason ?? 'nothing to show' };
    const panel = chosen.panel;
    let cal: Awaited<ReturnType<typeof loadRunCalibration>>;
    try {
      cal = await loadRunCalibration(database, { run: chosen.run, judge: panel });
    } catch (e) {
      if (isAssayError(e) && (e.code === 'not_found' || e.code === 'bad_input')) return { ...base, ...EMPTY, reason: e.message };
      throw e;
    }
    const members = cal.judges.filter((j) => j !== panel);
    const { kept } = rowsOfScale(cal.rows, 'verdict');
    const empty = { ...base, ...EMPTY, members, note: await baselineNote(database, members), instability: cal.panelInstability ?? [], excludedExamples: cal.excludedExamples };
    if (!kept.some((r) => r.kind === 'human')) return { ...empty, reason: `run '${chosen.run}' has no human item verdicts` };
    let report: CalibrationReport;
    try {
      // Reused while the rows equal the last ones (report-analysis.ts calibrationReport says why).
      const task = { rows: kept, opts: { scale: 'verdict' as const, seed, source: `run ${chosen.run}` } };
      report = await memoLast(reportKey('panel-calibrate', { ...ask, seed }), task, () => runInThread<CalibrationReport>(REPORT_TASKS, 'calibrateTask', task));
    } catch (e) {
      if (isAssayError(e) && e.code === 'bad_input') return { ...empty, reason: e.message };
      throw e;
    }
    const byRater = new Map(report.judgeReports.map((j) => [j.rater, j]));
    const rel = await loadReliability(database, { run: chosen.run, judge: panel });
    const reliability = rel.diagram.n > 0 ? { ...rel.diagram, leftOut: rel.leftOut, notes: rel.notes } : null;
    // Seeded like the section's kappas, so the page and `assay calibrate --seed S` print the same interval.
    const orderSensitivity = await loadOrderSensitivity(database, { run: chosen.run, judge: panel, seed });
    const pairs = report.judgeJudge?.pairs ?? {};
    return {
      ...empty,
      units: report.units,
      answers: report.answers,
      humans: report.humans,
      vsHumans: [panel, ...members].map((judge) => ({ judge, role: judge === panel ? ('panel' as const) : ('member' as const), ...figures(byRater.get(judge)?.vsMajority) })),
      vsVote: members.map((member) => ({ member, ...figures(pairOf(pairs, panel, member)) })),
      reliability,
      orderSensitivity: orderSensitivity && orderSensitivity.grades > 0 ? orderSensitivity : null,
      ...(reliability ? {} : { reliabilityReason: `No voted item of the run has both a confidence and a human majority (${[leftOutText(rel.leftOut), ...rel.notes].join('; ')})` }),
    };
  });
}
