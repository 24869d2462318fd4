import type { Command, CommandContext } from '../command.ts';
import { badInput } from '../../domain/errors.ts';
import { isLabelScale, LABEL_SCALES, parseLabels, type LabelRow, type LabelScale } from '../../domain/labels.ts';
import type { OrderSensitivity } from '../../analysis/calibration/order-sensitivity.ts';
import type { RubricWeights } from '../../analysis/calibration/types.ts';
import type { ItemInstability } from '../../scoring/panel/index.ts';
import { formatCalibration } from '../format/calibration.ts';
import { formatOrderSensitivity } from '../format/calibration-order.ts';
import { formatReliability } from '../format/calibration-reliability.ts';
import type { ReliabilityReport } from '../../services/grading/calibration-reliability.ts';
import { table } from '../table.ts';
import { choiceFlag, numberFlag, readText, requireFlag } from '../io.ts';
import { readStructured } from '../read-structured.ts';
import { HUMANS_MODES, type HumansMode } from '../../domain/campaigns.ts';
import type { UnverifiablePolicy } from '../../scoring/description/score.ts';
import { UNVERIFIABLE_POLICIES, REPORT_UNVERIFIABLE_DEFAULT, type PolicyInfo } from '../../services/report-policy.ts';

/** Where the labels come from: a labels file, or a stored run's judge verdicts joined with its human labels. */
interface LabelSource {
  rows: LabelRow[];
  name: string;
  /** The judges of a stored run's report (a panel and its members); undefined for a labels file. */
  judges?: string[];
  /** A panel's per-item instability over the run (docs/panels.md). */
  panelInstability?: ItemInstability[];
  /** A shuffled panel's order sensitivity over the run (docs/panels.md); null for any other judge; absent for a labels file. */
  orderSensitivity?: OrderSensitivity | null;
  /** The judge's reliability diagram over the run (docs/grades.md#confidence); absent for a labels file. */
  reliability?: ReliabilityReport['diagram'] & Pick<ReliabilityReport, 'leftOut' | 'notes'>;
  /** A stored run's answers the judge was shown as examples, left out of its figures (docs/judges.md). */
  excludedExamples?: number;
  /** A labels file's anchored judges: per judge, its example answers of the file left out (--json excludedExamples). */
  excludedByJudge?: Record<string, number>;
  /** What a stored run's report says about the judge side on its scale (calibration-labels.ts), or a file's anchored judges. */
  notes?: string[];
  /** A stored run: false when the judge has no side on the scale (the rows are the people's; the notes name it). */
  judged?: boolean;
  /** A stored run: its labels of another scale, set aside (--json setAside, as GET /api/reports/calibration). */
  setAside?: number;
  /** A stored run: the policy the judge's F1 is read under on the numeric scale (--json unverifiable, unverifiableNote). */
  policy?: PolicyInfo;
  /** A stored run whose judge has no side on the scale: what that side is (a line of the text). */
  judgeSide?: string;
}

/** A labels file: an anchored judge's rows of its own examples of this label set are left out, counted in notes (file-example-exclusion.ts). */
async function labelsFromFile(path: string, scale: LabelScale): Promise<LabelSource> {
  const { excludeFileExamples } = await import('../../services/grading/file-example-exclusion.ts');
  const { rows, excludedExamples, notes } = excludeFileExamples(parseLabels(readText(path, 'labels'), path, scale), path);
  // excludedExamples always ({} when none), as POST /api/calibrate gives it over the same rows.
  return { rows, name: path, excludedByJudge: excludedExamples, ...(notes.length ? { notes } : {}) };
}

/** Labels of a stored run: the judge's stored verdicts (kind "judge") beside the human labels. */
async function labelsFromRun(run: string, judge: string | undefined, seed: number | undefined, scale: LabelScale, unverifiable: UnverifiablePolicy): Promise<LabelSource> {
  if (judge === undefined) throw badInput('--run needs --judge J (the judge whose stored grades are calibrated)');
  const { withDatabase } = await import('../database.ts');
  const { loadRunCalibration } = await import('../../services/grading/calibration-labels.ts');
  const { loadOrderSensitivity } = await import('../../services/grading/calibration-order.ts');
  const { loadReliability } = await import('../../services/grading/calibration-reliability.ts');
  return withDatabase(async (database) => {
    // The run's labels of this scale only: item verdicts, answer:binary or answer:numeric (calibration-labels.ts).
    const calibration = await loadRunCalibration(database, { run, judge, scale, unverifiable });
    // Order sensitivity and reliability are figures of item verdicts: on the binary and numeric scales
    // there are none to report (absent, as for a labels file), never the verdict figures under another scale.
    if (scale !== 'verdict') return { ...calibration, name: `run ${run}` };
    // Seeded like the report's own intervals, so --seed S reproduces every figure.
    const orderSensitivity = await loadOrderSensitivity(database, { run, judge, ...(seed !== undefined ? { seed } : {}) });
    // The diagram's points (one per labelled item) stay out of the report: the bins are the figure.
    const { diagram, leftOut, notes } = await loadReliability(database, { run, judge });
    return { ...calibration, orderSensitivity, reliability: { ...diagram, leftOut, notes }, name: `run ${run}` };
  });
}

/**
 * Item weights of each rubric file, under the rubric's id: a label is weighted by its own rubric's item
 * (the rows' rubric field), never by another rubric's item of the same id (analysis/calibration/weights.ts).
 */
async function rubricWeights(paths: readonly string[]): Promise<Array<RubricWeights & { path: string }>> {
  const { parseRubric } = await import('../../scoring/description/rubric.ts');
  const seen = new Map<string, string>();
  return paths.map((path) => {
    const rubric = parseRubric(readStructured(path, 'rubric'), `rubric ${path}`);
    const first = seen.get(rubric.id);
    if (first !== undefined) throw badInput(`--rubric: ${path} and ${first} are both rubric '${rubric.id}' (give each rubric once)`);
    seen.set(rubric.id, path);
    return { rubric: rubric.id, items: Object.fromEntries(rubric.items.map((it) => [it.id, it.weight])), path };
  });
}

async function checkRunWeights(run: string, source: LabelSource, judge: string, weights: Array<RubricWeights & { path: string }>): Promise<void> {
  const { withDatabase } = await import('../database.ts');
  const { checkStoredWeights } = await import('../calibrate-stored-weights.ts');
  const answers = source.rows.map((r) => r.answer);
  await withDatabase((database) => checkStoredWeights(database, { run, judges: source.judges ?? [judge], judge, answers }, weights));
}

/**
 * The human side as --humans asks (docs/annotation.md): each annotator, their majority, or the
 * adjudicated final labels of a stored run's campaigns (a labels file carries no adjudications).
 */
async function humanSide(rows: LabelRow[], humans: HumansMode, scale: LabelScale, run: string | undefined): Promise<LabelRow[]> {
  if (humans === 'each') return rows;
  if (run === undefined) {
    if (humans === 'adjudicated') throw badInput('--humans adjudicated needs --run R (adjudications are stored with the campaigns)');
    const { applyHumans } = await import('../../services/campaigns/humans.ts');
    return applyHumans(rows, humans, [], scale);
  }
  const { withDatabase } = await import('../database.ts');
  const { humansRows } = await import('../../services/campaigns/calibration-humans.ts');
  return withDatabase((database) => humansRows(database, rows, { key: 'externalId', run, scale, humans }));
}

function scaleFlag(values: CommandContext['values']): LabelScale {
  const scale = requireFlag(values, 'scale');
  if (!isLabelScale(scale)) throw badInput(`--scale must be one of ${LABEL_SCALES.join('|')}, got '${scale}'`);
  return scale;
}

const calibrate: Command = {
  path: ['calibrate'],
  summary: 'Calibrate judges against human labels: agreement, kappa, alpha, confusion, per model and per item',
  usage: '(--labels L.jsonl|L.csv | --run R --judge J) --scale verdict|binary|numeric [--judge RATER] [--seed S] [--rubric R.yaml (once per rubric of the labels; with --run, the version graded under)] [--humans each|majority|adjudicated] [--unverifiable count|exclude (--run, numeric scale)]',
  options: {
    labels: { type: 'string' },
    run: { type: 'string' },
    scale: { type: 'string' },
    judge: { type: 'string' },
    seed: { type: 'string' },
    rubric: { type: 'string', multiple: true },
    humans: { type: 'string' },
    unverifiable: { type: 'string' },
  },
  async run({ values }) {
    const scale = scaleFlag(values);
    const humans = choiceFlag(values, 'humans', HUMANS_MODES, 'each');
    const seed = numberFlag(values, 'seed', { integer: true, min: 0, max: 2 ** 32 - 1 });
    const judge = typeof values.judge === 'string' ? values.judge : undefined;
    const labels = typeof values.labels === 'string' ? values.labels : undefined;
    const run = typeof values.run === 'string' ? values.run : undefined;
    if (labels !== undefined && run !== undefined) throw badInput('give either --labels or --run, not both');
    if (labels === undefined && run === undefined) throw badInput('missing required option --labels (or --run)');
    // A stored run's F1 is read under one policy (report-policy.ts); a labels file's values are as given.
    if (values.unverifiable !== undefined && run === undefined) throw badInput('--unverifiable needs --run R (a labels file gives its values as they are)');
    const unverifiable = choiceFlag(values, 'unverifiable', UNVERIFIABLE_POLICIES, REPORT_UNVERIFIABLE_DEFAULT);
    if (humans === 'adjudicated' && run === undefined) throw badInput('--humans adjudicated needs --run R (adjudications are stored with the campaigns)');
    // --rubric once per rubric of the labels; each answer's items weighted by its own rubric's (weights.ts).
    const rubrics = Array.isArray(values.rubric) ? values.rubric.filter((r): r is string => typeof r === 'string') : [];
    // Weights are of rubric items: the binary and numeric scales label whole answers, which no weight changes.
    if (rubrics.length && scale !== 'verdict') throw badInput(`--rubric weighs rubric items, which only --scale verdict labels (the ${scale} scale labels whole answers)`);
    const weights = rubrics.length ? await rubricWeights(rubrics) : undefined;
    const source = labels !== undefined ? await labelsFromFile(labels, scale) : await labelsFromRun(run!, judge, seed, scale, unverifiable);
    source.rows = await humanSide(source.rows, humans, scale, run);
    // A stored run: each file must weigh as the rubric version the run's grades were graded under.
    if (weights && run !== undefined) await checkRunWeights(run, source, judge!, weights);

    const { calibrate: calibrateLabels } = await import('../../analysis/calibration/index.ts');
    const opts: Parameters<typeof calibrateLabels>[1] = { scale, source: source.name };
    // A panel's run report shows the panel and each member (source.judges); otherwise the one judge asked for;
    // none when the run's judge has no side on the scale (its notes say so, as the API's and the page's).
    if (judge !== undefined && (source.judges?.length ?? 1) === 1 && source.judged !== false) opts.judge = judge;
    if (seed !== undefined) opts.seed = seed;
    if (weights) opts.weights = weights;
    const report = calibrateLabels(source.rows, opts);
    if (source.judged === false) report.notes = report.notes.filter((n) => !n.startsWith('no judge labels'));
    if (source.notes?.length) report.notes.push(...source.notes);
    // Figures only a stored run has (a labels file carries no panel reports): present, null when not applicable.
    const runFigures = source.orderSensitivity !== undefined ? { reliability: source.reliability, orderSensitivity: source.orderSensitivity } : {};
    const reliability = source.reliability ? `\n\n${formatReliability(judge!, source.reliability)}` : '';
    const order = `${reliability}${source.orderSensitivity ? `\n\n${formatOrderSensitivity(judge!, source.orderSensitivity)}` : ''}`;
    if (source.setAside !== undefined) Object.assign(runFigures, { setAside: source.setAside });
    if (source.policy !== undefined) Object.assign(runFigures, source.policy);
    if (source.excludedExamples !== undefined) Object.assign(runFigures, { excludedExamples: source.excludedExamples });
    if (source.excludedByJudge !== undefined) Object.assign(runFigures, { excludedExamples: source.excludedByJudge });
    const side = source.judgeSide ? `\n\nJudge ${judge}: no side on this scale; ${source.judgeSide}` : '';
    const examples = `${side}${source.excludedExamples ? `\n\nExcluded examples: ${source.excludedExamples} answer(s) of the run that ${judge} was shown as examples are left out of its figures` : ''}`;
    if (!source.panelInstability) return { json: { ...report, ...runFigures }, text: formatCalibration(report) + examples + order };
    const unstable = source.panelInstability.filter((i) => i.answers > 0);
    const text = `${formatCalibration(report)}\n\nPanel ${judge}: item instability (share of ok samples disagreeing with the vote, pooled over the run's quorate panel grades)\n${table(['item', 'instability', 'samples', 'answers'], unstable.map((i) => [i.id, i.instability, i.samples, i.answers]))}${examples}${order}`;
    return { json: { ...report, panelInstability: source.panelInstability, ...runFigures }, text };
  },
};

export default calibrate;
