import type { Database } from '../db/client.ts';
import { runInThread, taskModule } from '../threads/pool.ts';
import { cachedReport, reportKey } from './report-cache.ts';
import { GRADED_TABLES } from './report-inputs.ts';
import { assemblyFacts, descriptionFacts, policyNote } from './report-facts.ts';
import type { PolicyInfo } from './report-policy.ts';
import { chooseJudge, filterKey, judgeInfo, type AssemblyRow, type DescriptionRow, type JudgeInfo, type ReportFilters } from './report-data.ts';
import { compareEffort, finite, groupInto, meanColumnsMany, median, rateColumns, seededOptions, type ReportOptions } from './report-stats.ts';

/** Orientation, condition ablation and effort tables over stored grades and assembly scores. */

export interface OrientationRow {
  model: string;
  landscapeCorrect: number;
  landscapeTotal: number;
  portraitCorrect: number;
  portraitTotal: number;
  /** Answers that state no orientation (counted as not correct). */
  notStated: number;
  correct: number;
  total: number;
  accuracy: number | null;
  accuracyLow: number | null;
  accuracyHigh: number | null;
}

/** Per model: how often the stated orientation matches the rubric truth, split by the true orientation. */
export function buildOrientation(desc: readonly DescriptionRow[]): OrientationRow[] {
  const judged = desc.filter((d) => d.gradeStatus === 'ok' && (d.truthOrientation === 'landscape' || d.truthOrientation === 'portrait'));
  return [...groupInto(judged, (d) => [d.model])]
    .map(([model, rows]) => {
      const by = (o: string) => rows.filter((r) => r.truthOrientation === o);
      const ok = (rs: DescriptionRow[]) => rs.filter((r) => r.orientationCorrect === true).length;
      const correct = ok(rows);
      return {
        model,
        landscapeCorrect: ok(by('landscape')),
        landscapeTotal: by('landscape').length,
        portraitCorrect: ok(by('portrait')),
        portraitTotal: by('portrait').length,
        notStated: rows.filter((r) => r.statedOrientation === null).length,
        correct,
        total: rows.length,
        ...(rateColumns('accuracy', correct, rows.length) as Pick<OrientationRow, 'accuracy' | 'accuracyLow' | 'accuracyHigh'>),
      };
    })
    .sort((a, b) => (b.accuracy ?? -1) - (a.accuracy ?? -1) || a.model.localeCompare(b.model));
}

export interface AblationRow {
  model: string;
  condition: string;
  descriptions: number;
  f1: number | null;
  f1Low: number | null;
  f1High: number | null;
  /** Answers stating a piece count, and the mean relative error |stated − true| / true over them. */
  pieceCountStated: number;
  pieceCountError: number | null;
  pieceCountErrorLow: number | null;
  pieceCountErrorHigh: number | null;
  assemblies: number;
  neighbour: number | null;
}

/**
 * A condition ablation: runs carrying the condition tag (e.g. "tagged": pieces labelled in the image)
 * against runs without it ("plain"), per model: description F1 and piece-count error side by side.
 */
export function buildAblation(desc: readonly DescriptionRow[], asm: readonly AssemblyRow[], tag: string, opts: ReportOptions = {}): AblationRow[] {
  const condition = (tags: string[]) => (tags.includes(tag) ? tag : 'plain');
  const key = (model: string, tags: string[]) => [`${model}\u0000${condition(tags)}`];
  const d = groupInto(desc.filter((x) => x.gradeStatus === 'ok'), (x) => key(x.model, x.tags));
  const a = groupInto(asm.filter((x) => x.scoreStatus !== null), (x) => key(x.model, x.tags));
  const keys = [...new Set([...d.keys(), ...a.keys()])];
  const errorsOf = (k: string) => finite((d.get(k) ?? []).map((x) => x.pieceCountError));
  // Every interval of the table in one batch (meanColumnsMany: the same numbers as one meanColumns each).
  const columns = meanColumnsMany(keys.flatMap((k) => [['f1', finite((d.get(k) ?? []).map((x) => x.f1))], ['pieceCountError', errorsOf(k)]] as const), opts);
  const rows: AblationRow[] = keys.map((k, i) => {
    const [model, cond] = k.split('\u0000') as [string, string];
    const ds = d.get(k) ?? [];
    const as = a.get(k) ?? [];
    const nb = finite(as.map((x) => x.neighbour));
    return {
      model,
      condition: cond,
      descriptions: ds.length,
      ...(columns[2 * i] as Pick<AblationRow, 'f1' | 'f1Low' | 'f1High'>),
      pieceCountStated: errorsOf(k).length,
      ...(columns[2 * i + 1] as Pick<AblationRow, 'pieceCountError' | 'pieceCountErrorLow' | 'pieceCountErrorHigh'>),
      assemblies: as.length,
      neighbour: nb.length ? nb.reduce((s, x) => s + x, 0) / nb.length : null,
    };
  });
  // The condition first, then plain, so each model's pair reads left to right.
  return rows.sort((x, y) => x.model.localeCompare(y.model) || Number(x.condition === 'plain') - Number(y.condition === 'plain'));
}

export interface EffortRow {
  model: string;
  effort: string;
  answers: number;
  /** Answers with no usable output (status no_answer, truncated or error). */
  missing: number;
  truncated: number;
  descriptions: number;
  f1: number | null;
  f1Low: number | null;
  f1High: number | null;
  assemblies: number;
  neighbour: number | null;
  neighbourLow: number | null;
  neighbourHigh: number | null;
  medianOutputTokens: number | null;
}

/** Per model × effort level: scores, the median output tokens, and how many answers are missing. */
export function buildEffort(desc: readonly DescriptionRow[], asm: readonly AssemblyRow[], opts: ReportOptions = {}): EffortRow[] {
  type Any = DescriptionRow | AssemblyRow;
  const all: Any[] = [...desc, ...asm];
  const groups = groupInto(all, (x) => [`${x.model}\u0000${x.effort ?? 'default'}`]);
  const parts = [...groups].map(([k, list]) => ({
    k,
    list,
    ds: list.filter((x): x is DescriptionRow => 'f1' in x && x.f1 !== null),
    as: list.filter((x): x is AssemblyRow => 'scoreStatus' in x && x.scoreStatus !== null),
  }));
  // Every interval of the table in one batch (meanColumnsMany: the same numbers as one meanColumns each).
  const columns = meanColumnsMany(parts.flatMap(({ ds, as }) => [['f1', finite(ds.map((x) => x.f1))], ['neighbour', finite(as.map((x) => x.neighbour))]] as const), opts);
  const rows: EffortRow[] = parts.map(({ k, list, ds, as }, i) => {
    const [model, effort] = k.split('\u0000') as [string, string];
    // A describe-then-solve answer is a description row and an assembly row: one answer, counted once.
    const seen = new Set<number>();
    const answers = list.filter((x) => !seen.has(x.answerId) && (seen.add(x.answerId), true));
    return {
      model,
      effort,
      answers: answers.length,
      missing: answers.filter((x) => x.answerStatus !== 'ok').length,
      truncated: answers.filter((x) => x.answerStatus === 'truncated').length,
      descriptions: ds.length,
      ...(columns[2 * i] as Pick<EffortRow, 'f1' | 'f1Low' | 'f1High'>),
      assemblies: as.length,
      ...(columns[2 * i + 1] as Pick<EffortRow, 'neighbour' | 'neighbourLow' | 'neighbourHigh'>),
      medianOutputTokens: median(finite(answers.map((x) => x.outputTokens))),
    };
  });
  return rows.sort((x, y) => x.model.localeCompare(y.model) || compareEffort(x.effort, y.effort));
}

const REPORT_TASKS = taskModule('report-tasks', import.meta.url);

/** Each table is cached per version of the tables it reads (not labels) and built on the report thread (report-cache.ts, src/threads). */
export async function orientationTable(database: Database, f: ReportFilters = {}): Promise<JudgeInfo & { rows: OrientationRow[] }> {
  return cachedReport(database, reportKey('orientation', filterKey(f)), async () => {
    const judge = await chooseJudge(database, f.judge);
    const desc = await descriptionFacts(database, f, judge);
    return { ...judgeInfo(judge), rows: await runInThread<OrientationRow[]>(REPORT_TASKS, 'orientationTask', { desc }) };
  }, GRADED_TABLES);
}

export async function ablationTable(
  database: Database,
  f: ReportFilters & { tag?: string } = {},
  opts: ReportOptions = {},
): Promise<JudgeInfo & PolicyInfo & { tag: string; rows: AblationRow[] }> {
  const tag = f.tag ?? 'tagged';
  const o = seededOptions(opts);
  return cachedReport(database, reportKey('ablation', [filterKey(f), tag, o]), async () => {
    const judge = await chooseJudge(database, f.judge);
    const [desc, asm, policy] = await Promise.all([descriptionFacts(database, f, judge), assemblyFacts(database, f), policyNote(database, f, judge)]);
    return { ...judgeInfo(judge), ...policy, tag, rows: await runInThread<AblationRow[]>(REPORT_TASKS, 'ablationTask', { desc, asm, tag, opts: o }) };
  }, GRADED_TABLES);
}

export async function effortTable(database: Database, f: ReportFilters = {}, opts: ReportOptions = {}): Promise<JudgeInfo & PolicyInfo & { rows: EffortRow[] }> {
  const o = seededOptions(opts);
  return cachedReport(database, reportKey('effort', [filterKey(f), o]), async () => {
    const judge = await chooseJudge(database, f.judge);
    const [desc, asm, policy] = await Promise.all([descriptionFacts(database, f, judge), assemblyFacts(database, f), policyNote(database, f, judge)]);
    return { ...judgeInfo(judge), ...policy, rows: await runInThread<EffortRow[]>(REPORT_TASKS, 'effortTask', { desc, asm, opts: o }) };
  }, GRADED_TABLES);
}
