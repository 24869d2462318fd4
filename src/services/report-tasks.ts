import { calibrate, type CalibrateOptions, type CalibrationReport } from '../analysis/calibration/index.ts';
import { describeThenSolve, type DtsReport, type DtsRow } from '../analysis/describe-then-solve/index.ts';
import { SCALES, type LabelRow, type LabelScale } from '../domain/labels.ts';
import type { DtsMetric } from './report-analysis.ts';
import type { AssemblyRow, DescriptionRow } from './report-data.ts';
import { assemblyHalf, buildLeaderboard, descriptionHalf, type AssemblyHalf, type DescriptionHalf, type LeaderboardRow } from './report-leaderboard.ts';
import { assemblyRowsFrom, descriptionRowsFrom, type RowsInput } from './report-rows.ts';
import { buildAblation, buildEffort, buildOrientation, type AblationRow, type EffortRow, type OrientationRow } from './report-tables.ts';
import { assemblyBucket, type ReportOptions } from './report-stats.ts';
import { NO_MODEL } from '../domain/answers.ts';
import { noJudgeSideNote, setAsideNote } from './calibration-notes.ts';
import { rowsOfScale } from './web-calibration.ts';

/**
 * The CPU-heavy half of every report, as functions of plain data that src/threads runs on the report
 * thread: rows arrive as the JSON text of report-data.ts and are parsed here, off the event loop. Pure
 * (no database, no clock), so the thread and the main thread give the same numbers.
 */

/** Rows as JSON text of row objects, or as the facts they are joined from (report-rows.ts). */
interface Rows {
  desc: RowsInput;
  asm: RowsInput;
}

export const leaderboardTask = (x: Rows & { opts: ReportOptions }): LeaderboardRow[] => buildLeaderboard(descriptionRowsFrom(x.desc), assemblyRowsFrom(x.asm), x.opts);

/** The leaderboard's halves, computed and cached apart (report-leaderboard.ts). */
export const descriptionHalfTask = (x: { desc: RowsInput; opts: ReportOptions }): DescriptionHalf => descriptionHalf(descriptionRowsFrom(x.desc), x.opts);
export const assemblyHalfTask = (x: { asm: RowsInput; opts: ReportOptions }): AssemblyHalf => assemblyHalf(assemblyRowsFrom(x.asm), x.opts);

/** Rows of runs that name a model: the per-model tables never show ad hoc answers as a model "unknown". */
const attributed = <T extends { model: string }>(rows: T[]): T[] => rows.filter((r) => r.model !== NO_MODEL);
const descriptions = (x: RowsInput) => attributed(descriptionRowsFrom(x));
const assemblies = (x: RowsInput) => attributed(assemblyRowsFrom(x));

export const orientationTask = (x: { desc: RowsInput }): OrientationRow[] => buildOrientation(descriptions(x.desc));

export const ablationTask = (x: Rows & { tag: string; opts: ReportOptions }): AblationRow[] => buildAblation(descriptions(x.desc), assemblies(x.asm), x.tag, x.opts);

export const effortTask = (x: Rows & { opts: ReportOptions }): EffortRow[] => buildEffort(descriptions(x.desc), assemblies(x.asm), x.opts);

export const calibrateTask = (x: { rows: LabelRow[]; opts: CalibrateOptions }): CalibrationReport => calibrate(x.rows, x.opts);

/**
 * The calibration over stored labels, for the page and GET /api/reports/calibration alike: rows of the
 * scale only, the rest (labels of another scale, claim marks) set aside and counted in the notes; no
 * human label of the scale is a reason, not a report. A judge asked for that has no label among the rows
 * (it exists but graded none of the labelled answers on the scale) is an empty judge side, said by name:
 * the people's figures still stand, and the filter names something (filter-values.ts), so neither a 404
 * nor a refusal of the whole report.
 */
export function pageCalibrationTask(x: { rows: LabelRow[]; scale: LabelScale; judge?: string; seed: number }): { report: CalibrationReport | null; reason?: string; skipped: number } {
  const { kept, skipped } = rowsOfScale(x.rows, x.scale);
  if (!kept.some((r) => r.kind === 'human')) return { report: null, reason: `no human labels on the ${x.scale} scale yet`, skipped };
  const judged = x.judge === undefined || kept.some((r) => r.kind === 'judge' && r.rater === x.judge);
  // The judge's side is empty: the report of the people alone (no other judge stands in for it).
  const rows = judged ? kept : kept.filter((r) => r.kind === 'human');
  try {
    const report = calibrate(rows, { scale: x.scale, seed: x.seed, source: 'stored labels', ...(x.judge && judged ? { judge: x.judge } : {}) });
    const notes = [
      ...(judged ? report.notes : report.notes.filter((n) => !n.startsWith('no judge labels'))),
      ...(judged ? [] : [noJudgeSideNote(x.judge!, x.scale)]),
      ...setAsideNote(skipped, x.scale),
    ];
    return { report: { ...report, notes }, skipped };
  } catch (e) {
    if ((e as { code?: string }).code === 'bad_input') return { report: null, reason: (e as Error).message, skipped };
    throw e;
  }
}

export interface DtsTaskInput extends Rows {
  perception: 'f1' | 'label';
  metric: DtsMetric;
  /** Human whole-answer labels of description answers (perception 'label' only): [answerId, annotator, label], each person's newest first. */
  labels: Array<[number, string, string]>;
  perceptionThreshold: number;
  answerThreshold: number;
}

/**
 * Per run, the description of each answer id, and the descriptions with a perception of each puzzle and
 * rubric: the pairing's three lookups. A description without one (ungraded by the report's judge, its grade
 * failed, unlabelled) is still the answer's own, but no candidate for the puzzle: it would hide a graded one.
 */
function descriptionIndex(desc: readonly DescriptionRow[], perceived: (d: DescriptionRow) => boolean) {
  const byRun = new Map<string, { answer: Map<number, DescriptionRow>; puzzle: Map<number, DescriptionRow[]>; rubric: Map<number, DescriptionRow[]> }>();
  const add = (m: Map<number, DescriptionRow[]>, k: number, d: DescriptionRow) => (m.get(k) ?? m.set(k, []).get(k)!).push(d);
  for (const d of desc) {
    let ix = byRun.get(d.run);
    if (!ix) byRun.set(d.run, (ix = { answer: new Map(), puzzle: new Map(), rubric: new Map() }));
    if (!ix.answer.has(d.answerId)) ix.answer.set(d.answerId, d);
    if (!perceived(d)) continue;
    if (d.puzzleId !== null) add(ix.puzzle, d.puzzleId, d);
    if (d.rubricId !== null) add(ix.rubric, d.rubricId, d);
  }
  return byRun;
}

/**
 * Majority of binary human labels per answer, one vote per person: their newest label that reads as
 * pass/fail (labels come newest first per answer and person; an imported '' and a workspace or campaign
 * answer:binary label of one person are one vote). A tie has no majority and leaves the answer unpaired.
 */
function binaryMajority(labels: ReadonlyArray<[number, string, string]>): Map<number, boolean> {
  const voted = new Set<string>();
  const votes = new Map<number, [number, number]>();
  for (const [id, annotator, label] of labels) {
    const n = SCALES.binary.normalise(label);
    const person = `${id}\u0000${annotator}`;
    if (!n || voted.has(person)) continue;
    voted.add(person);
    const v = votes.get(id) ?? [0, 0];
    v[n.value === 1 ? 0 : 1]++;
    votes.set(id, v);
  }
  return new Map([...votes].filter(([, [yes, no]]) => yes !== no).map(([id, [yes, no]]) => [id, yes > no]));
}

/**
 * Pairs each scored assembly with the description of the same puzzle by the same run (the answer
 * itself, else the puzzle's, else its rubric's), then runs describe-then-solve over the pairs. Only a
 * description with a perception is a candidate (a grade by the report's judge, or a labels majority). Two
 * or more candidates (two descriptions of the puzzle in the run) leave the assembly out, counted in
 * `ambiguous` (a subset of `unpaired`): which one it followed is unknown, and taking the first would
 * report a perception the assembly may not rest on (docs/analysis.md).
 */
export function dtsTask(x: DtsTaskInput): { paired: number; unpaired: number; ambiguous: number; report: DtsReport | null } {
  const desc = descriptions(x.desc);
  const asm = assemblies(x.asm);
  const labels = binaryMajority(x.labels);
  const perceptionOf = (d: DescriptionRow) => (x.perception === 'f1' ? d.f1 : labels.get(d.answerId)) ?? null;
  const index = descriptionIndex(desc, (d) => perceptionOf(d) !== null);
  const scored = asm.filter((a) => a.scoreStatus !== null && a[x.metric] !== null);
  const rows: DtsRow[] = [];
  let ambiguous = 0;
  for (const a of scored) {
    const ix = index.get(a.run);
    if (!ix) continue;
    const own = ix.answer.get(a.answerId);
    const candidates = own ? [own] : (ix.puzzle.get(a.puzzleId) ?? (a.puzzleRubricId === null ? undefined : ix.rubric.get(a.puzzleRubricId)) ?? []);
    if (candidates.length > 1) ambiguous++;
    if (candidates.length !== 1) continue;
    const p = perceptionOf(candidates[0]!);
    if (p === null) continue;
    // The answer id names the item: '<run>/<external id>' is ambiguous when either holds a '/'.
    rows.push({ model: a.model, item: `answer ${a.answerId}`, slice: assemblyBucket(a), perception: p, answer: a[x.metric]! });
  }
  const counts = { paired: rows.length, unpaired: scored.length - rows.length, ambiguous };
  if (rows.length === 0) return { ...counts, report: null };
  return { ...counts, report: describeThenSolve(rows, { perceptionThreshold: x.perceptionThreshold, answerThreshold: x.answerThreshold, source: 'stored answers' }) };
}
