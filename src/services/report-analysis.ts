import type { Database } from '../db/client.ts';
import type { CalibrationReport } from '../analysis/calibration/index.ts';
import type { DtsGroup, DtsReport } from '../analysis/describe-then-solve/index.ts';
import type { LabelRow, LabelScale } from '../domain/labels.ts';
import { ANSWER_SCALE_KEYS, type HumansMode } from '../domain/campaigns.ts';
import { runInThread, taskModule } from '../threads/pool.ts';
import { calibrationLabelSet, type CalibrationLabelSet } from './grading/calibration-labels.ts';
import { versionNotes } from './grading/label-versions.ts';
import { errorAnswersNote } from './error-answers.ts';
import { memoLast } from './content-memo.ts';
import { cachedPart, cachedReport, reportKey } from './report-cache.ts';
import { CALIBRATION_TABLES, GRADED_TABLES } from './report-inputs.ts';
import { exampleAnswers, excludedByJudge } from './grading/example-exclusion.ts';
import { badInput } from '../domain/errors.ts';
import { assemblyFacts, descriptionFacts, policyNote } from './report-facts.ts';
import type { PolicyInfo } from './report-policy.ts';
import { baselineNotes, chooseJudge, filterKey, judgeInfo, type JudgeInfo, type ReportFilters } from './report-data.ts';

const REPORT_TASKS = taskModule('report-tasks', import.meta.url);

/**
 * Calibration and describe-then-solve over stored data, through the same pure code as
 * `assay calibrate` and `assay analyze describe-then-solve`.
 */

const FILTERS = `($1::text is null or r.name = $1) and ($2::text is null or r.model = $2)`;

/**
 * Label rows for calibration: every stored label (human and judge) plus, as judge labels, the grades
 * of answers that humans labelled, on the report's scale (services/grading/calibration-labels.ts).
 * Answers are keyed by database id: a report spans runs.
 */
export async function calibrationRows(database: Database, scale: LabelScale, f: ReportFilters = {}, humans?: HumansMode): Promise<LabelRow[]> {
  return (await calibrationRowSet(database, scale, f, humans)).rows;
}

/** The rows with what was left out for its rubric version (calibration-labels.ts calibrationLabelSet): the reports state it in their notes. */
export function calibrationRowSet(database: Database, scale: LabelScale, f: ReportFilters = {}, humans?: HumansMode): Promise<CalibrationLabelSet> {
  const q = { key: 'answerId' as const, scale, humanLabelledOnly: true, ...(f.run ? { run: f.run } : {}), ...(f.model ? { model: f.model } : {}), ...(f.rubric ? { rubric: f.rubric } : {}), ...(f.judge ? { judge: f.judge } : {}), ...(humans && humans !== 'each' ? { humans } : {}), ...(f.unverifiable ? { unverifiable: f.unverifiable } : {}) };
  // ('each' is calibrationLabels' default: the same rows, one key.) One read per data version for the calibration page and the calibration API alike; callers only read the rows.
  return cachedPart(database, reportKey('calibration-rows', q), () => calibrationLabelSet(database, q), CALIBRATION_TABLES);
}

/** Judges of the report that are the lexical baseline, by slug, with the note to show beside them. */
export type JudgeNotes = Record<string, string>;

/**
 * The calibration over stored labels: the one service behind the /calibration page and
 * GET /api/reports/calibration (docs/analysis.md). Labels of another scale and claim marks are set aside
 * and counted, an anchored judge's example answers are left out of its figures and counted per judge,
 * and the rows left out for their rubric version or of error answers are said in the notes: on both surfaces alike.
 */
export interface StoredCalibration {
  report: CalibrationReport | null;
  /** Why there is no report (no human label on the scale). */
  reason?: string;
  /** Stored labels of another scale and claim marks, set aside (web-calibration.ts rowsOfScale). */
  setAside: number;
  /** The report's judges that are the lexical baseline, with the note to show. */
  judgeNotes: JudgeNotes;
  /** Per anchored judge, the answers left out of its figures because it was shown them as examples. */
  excludedExamples: Record<string, number>;
  /** The unverifiable-claims policy the judges' F1 is read under on the numeric scale, and what it left out (report-policy.ts). */
  policy: PolicyInfo;
}

export type StoredCalibrationOptions = ReportFilters & { scale: LabelScale; seed?: number; humans?: HumansMode };

/** Cached per version of the tables it reads (report-inputs.ts CALIBRATION_TABLES); the calibration (its bootstraps) runs on the report thread. */
export async function storedCalibration(database: Database, opts: StoredCalibrationOptions): Promise<StoredCalibration> {
  const input = { scale: opts.scale, seed: opts.seed ?? 1, ...(opts.judge ? { judge: opts.judge } : {}) };
  const humans = opts.humans && opts.humans !== 'each' ? opts.humans : undefined;
  const key = [filterKey(opts), input, humans ?? 'each'];
  return cachedReport(database, reportKey('calibration', key), async () => {
    const { rows, versions, policy, errorAnswers } = await calibrationRowSet(database, opts.scale, opts, humans);
    // Reused while the rows equal the last ones: a write that moves the tables but not these rows (a
    // regrade's F1 on the verdict scale, a grade of an answer no human labelled) is not calibrated again.
    const task = { rows, ...input };
    const r = await memoLast(reportKey('calibrate', key), task, () => runInThread<{ report: CalibrationReport | null; reason?: string; skipped: number }>(REPORT_TASKS, 'pageCalibrationTask', task));
    const examples = await exampleAnswers(database, { key: 'answerId', ...(opts.run ? { run: opts.run } : {}), ...(opts.model ? { model: opts.model } : {}), ...(opts.rubric ? { rubric: opts.rubric } : {}), judges: opts.judge ? [opts.judge] : null });
    const base = { setAside: r.skipped, excludedExamples: excludedByJudge(examples), policy };
    if (!r.report) return { report: null, ...(r.reason !== undefined ? { reason: r.reason } : {}), ...base, judgeNotes: {} };
    // Error answers' grades and labels are out of the rows (calibration-labels.ts): said, as `assay calibrate --run` says it.
    const report = { ...r.report, notes: [...r.report.notes, ...versionNotes(versions), ...(policy.unverifiableNote ? [policy.unverifiableNote] : []), ...errorAnswersNote(errorAnswers)] };
    return { report, ...base, judgeNotes: await baselineNotes(database, report.judges) };
  }, CALIBRATION_TABLES);
}

/** GET /api/reports/calibration: the stored calibration as a report; no human label of the scale is bad input (its reason). */
export async function calibrationReport(
  database: Database,
  opts: StoredCalibrationOptions,
): Promise<CalibrationReport & Pick<StoredCalibration, 'judgeNotes' | 'setAside' | 'excludedExamples'> & PolicyInfo> {
  const r = await storedCalibration(database, opts);
  if (!r.report) throw badInput(`stored labels: ${r.reason}`);
  return { ...r.report, judgeNotes: r.judgeNotes, setAside: r.setAside, excludedExamples: r.excludedExamples, ...r.policy };
}

export const DTS_METRICS = ['neighbour', 'direct', 'proximity', 'adjacency', 'exactMatch'] as const;
/** τ for both sides when none is given (the page, the API and this service alike). */
export const DTS_DEFAULT_THRESHOLD = 0.5;
export type DtsMetric = (typeof DTS_METRICS)[number];

export interface DtsOptions extends ReportFilters {
  /** f1: the description's F1 ≥ τ; label: a binary human label of the description (majority). */
  perception?: 'f1' | 'label';
  metric?: DtsMetric;
  threshold?: number;
  perceptionThreshold?: number;
  answerThreshold?: number;
}

/** Of description F1 perception under one unverifiable-claims policy (report-policy.ts): it says which, and what it left out. */
export interface DtsResult extends JudgeInfo, PolicyInfo {
  perception: 'f1' | 'label';
  metric: DtsMetric;
  /** Scored assemblies paired with a description, and those left without one. */
  paired: number;
  unpaired: number;
  /** Of the unpaired, those left out because their run holds two or more candidate descriptions of the puzzle (report-tasks.ts dtsTask). */
  ambiguous: number;
  report: DtsReport | null;
  reason?: string;
}

/**
 * Human whole-answer labels of the description answers in scope (binary perception): imported ones
 * (item '') and the pass/fail of the workspace and campaigns (item answer:binary), as [answer id,
 * annotator, label], each person's newest first: the report thread takes one vote per person (report-tasks.ts).
 */
async function wholeAnswerLabels(database: Database, f: ReportFilters): Promise<Array<[number, string, string]>> {
  const r = await database.execute(
    `select l.answer_id as "answerId", l.annotator, l.label
       from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id
      where l.kind = 'human' and l.item_key in ('', $3) and a.task in ('describe', 'describe-then-solve') and ${FILTERS}
      order by l.answer_id, l.annotator, l.created_at desc, l.id desc`,
    [f.run ?? null, f.model ?? null, ANSWER_SCALE_KEYS.binary],
  );
  return r.rows.map((x) => [Number(x.answerId), String(x.annotator), String(x.label)]);
}

/** Cached per version of the tables it reads (labels only for perception 'label'); pairing and analysis run on the report thread (report-tasks.ts). */
export async function describeThenSolveReport(database: Database, o: DtsOptions = {}): Promise<DtsResult> {
  const perception = o.perception ?? 'f1';
  const metric = o.metric ?? 'neighbour';
  const threshold = o.threshold ?? DTS_DEFAULT_THRESHOLD;
  const t = { perceptionThreshold: o.perceptionThreshold ?? threshold, answerThreshold: o.answerThreshold ?? threshold };
  return cachedReport(database, reportKey('describe-then-solve', [filterKey(o), perception, metric, t]), async () => {
    const judge = await chooseJudge(database, o.judge);
    const [desc, asm, labels, policy] = await Promise.all([
      descriptionFacts(database, o, judge),
      assemblyFacts(database, o),
      perception === 'label' ? wholeAnswerLabels(database, o) : Promise.resolve([]),
      policyNote(database, o, judge),
    ]);
    const r = await runInThread<{ paired: number; unpaired: number; ambiguous: number; report: DtsReport | null }>(REPORT_TASKS, 'dtsTask', { desc, asm, labels, perception, metric, ...t });
    const base = { ...judgeInfo(judge), ...policy, perception, metric, paired: r.paired, unpaired: r.unpaired, ambiguous: r.ambiguous };
    if (!r.report) {
      // All left out for several candidates is another reason than none: say how many.
      const several = r.ambiguous > 0 ? `; ${r.ambiguous} left out as ambiguous (two or more of their puzzle in the run)` : '';
      return { ...base, report: null, reason: `no scored assembly has one graded (or labelled) description of the same puzzle in its run${several}` };
    }
    return { ...base, report: r.report };
  }, perception === 'label' ? [...GRADED_TABLES, 'labels'] : GRADED_TABLES);
}

/** The report's groups as flat rows (for CSV): overall, per model, per slice, per model × slice. */
export function flattenDts(report: DtsReport | null): Record<string, unknown>[] {
  if (!report) return [];
  const row = (scope: string, model: string | null, slice: string | null, g: DtsGroup) => ({
    scope,
    model,
    slice,
    n: g.n,
    perception: g.perception.estimate,
    perceptionLow: g.perception.ci?.[0] ?? null,
    perceptionHigh: g.perception.ci?.[1] ?? null,
    /** Trials behind the share (P✓ answers for P(A✓|P✓), P✗ for P(A✓|P✗)): the n of small-n cells. */
    perceptionN: g.perception.trials,
    answerGivenPerception: g.answerGivenPerception.estimate,
    answerGivenPerceptionLow: g.answerGivenPerception.ci?.[0] ?? null,
    answerGivenPerceptionHigh: g.answerGivenPerception.ci?.[1] ?? null,
    answerGivenPerceptionN: g.answerGivenPerception.trials,
    answerGivenNoPerception: g.answerGivenNoPerception.estimate,
    answerGivenNoPerceptionLow: g.answerGivenNoPerception.ci?.[0] ?? null,
    answerGivenNoPerceptionHigh: g.answerGivenNoPerception.ci?.[1] ?? null,
    answerGivenNoPerceptionN: g.answerGivenNoPerception.trials,
    answer: g.answer.estimate,
    answerLow: g.answer.ci?.[0] ?? null,
    answerHigh: g.answer.ci?.[1] ?? null,
    answerN: g.answer.trials,
    identityHolds: g.identity.holds,
  });
  return [
    row('overall', null, null, report.overall),
    ...Object.entries(report.byModel).flatMap(([m, g]) => [row('model', m, null, g), ...Object.entries(g.bySlice).map(([s, gs]) => row('model×slice', m, s, gs))]),
    ...Object.entries(report.bySlice).map(([s, g]) => row('slice', null, s, g)),
  ];
}
