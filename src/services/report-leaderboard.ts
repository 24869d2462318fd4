import type { Database } from '../db/client.ts';
import { type FamilyIndex, familyOf, sameFamily } from '../domain/model-families.ts';
import { loadFamilies } from '../judges/families.ts';
import { gridBaseline } from '../scoring/grid/baseline.ts';
import { runInThread, taskModule } from '../threads/pool.ts';
import { cachedReport, GRADED_TABLES, reportKey } from './report-cache.ts';
import { assemblyRowsText, chooseJudge, descriptionRowsText, filterKey, judgeInfo, type AssemblyRow, type DescriptionRow, type JudgeInfo, type ReportFilters } from './report-data.ts';
import { NO_MODEL } from '../domain/answers.ts';
import { assemblyBucket, compareBuckets, descriptionBucket, finite, groupInto, meanColumnsMany, seededOptions, type ReportOptions } from './report-stats.ts';
import { unattributedAnswers } from './report-models.ts';

/**
 * Leaderboard per model × puzzle size bucket (plus "all"): mean description F1 (ok grades of one
 * judge) and mean neighbour, direct and proximity of scored assemblies, each with a 95% bootstrap
 * interval over answers; and per bucket a "random baseline" row: the expected scores of a uniformly
 * random arrangement (design §2.2), averaged over the bucket's scored assembly answers.
 */

export const RANDOM_BASELINE = 'random baseline';

export interface LeaderboardRow {
  model: string;
  sizeBucket: string;
  baseline: boolean;
  descriptions: number;
  f1: number | null;
  f1Low: number | null;
  f1High: number | null;
  assemblies: number;
  neighbour: number | null;
  neighbourLow: number | null;
  neighbourHigh: number | null;
  direct: number | null;
  directLow: number | null;
  directHigh: number | null;
  proximity: number | null;
  proximityLow: number | null;
  proximityHigh: number | null;
  /**
   * The judge is of this model's family (judges/families.yaml): its description F1 may carry
   * self-preference. False for the baseline rows, two unknown families, and when nothing is graded.
   */
  sameFamilyAsJudge: boolean;
}

export interface Leaderboard extends JudgeInfo {
  seed: number;
  /** The judge's model family (judges/families.yaml; `unknown` when no prefix matches); null when nothing is graded. */
  judgeFamily: string | null;
  rows: LeaderboardRow[];
  /** Answers left off because their run names no model (ad hoc text graded without one): never a model "unknown". */
  unattributed: number;
}

const SEP = '\u0000';

export function buildLeaderboard(desc: readonly DescriptionRow[], asm: readonly AssemblyRow[], opts: ReportOptions = {}): LeaderboardRow[] {
  const graded = desc.filter((d) => d.f1 !== null && d.model !== NO_MODEL);
  const scored = asm.filter((a) => a.scoreStatus !== null && a.model !== NO_MODEL);
  const keys = (model: string, bucket: string) => [`${model}${SEP}${bucket}`, `${model}${SEP}all`];
  const d = groupInto(graded, (x) => keys(x.model, descriptionBucket(x.sizeBucket)));
  const a = groupInto(scored, (x) => keys(x.model, assemblyBucket(x)));
  const keysOf = [...new Set([...d.keys(), ...a.keys()])];
  // Every interval of the board in one batch (meanColumnsMany: the same numbers as one meanColumns each).
  const specs = keysOf.flatMap((key) => {
    const ds = d.get(key) ?? [];
    const as = a.get(key) ?? [];
    return [
      ['f1', finite(ds.map((x) => x.f1))],
      ['neighbour', finite(as.map((x) => x.neighbour))],
      ['direct', finite(as.map((x) => x.direct))],
      ['proximity', finite(as.map((x) => x.proximity))],
    ] as const;
  });
  const columns = meanColumnsMany(specs, opts);
  const rows: LeaderboardRow[] = keysOf.map((key, i) => {
    const [model, sizeBucket] = key.split(SEP) as [string, string];
    const [f1, neighbour, direct, proximity] = columns.slice(4 * i, 4 * i + 4);
    return {
      model,
      sizeBucket,
      baseline: false,
      descriptions: (d.get(key) ?? []).length,
      ...(f1 as Pick<LeaderboardRow, 'f1' | 'f1Low' | 'f1High'>),
      assemblies: (a.get(key) ?? []).length,
      ...(neighbour as Pick<LeaderboardRow, 'neighbour' | 'neighbourLow' | 'neighbourHigh'>),
      ...(direct as Pick<LeaderboardRow, 'direct' | 'directLow' | 'directHigh'>),
      ...(proximity as Pick<LeaderboardRow, 'proximity' | 'proximityLow' | 'proximityHigh'>),
      sameFamilyAsJudge: false,
    };
  });
  for (const [bucket, list] of groupInto(scored, (x) => [assemblyBucket(x), 'all'])) rows.push(baselineRow(bucket, list));
  return rows.sort(
    (x, y) =>
      compareBuckets(x.sizeBucket, y.sizeBucket) ||
      Number(x.baseline) - Number(y.baseline) ||
      (y.f1 ?? -Infinity) - (x.f1 ?? -Infinity) ||
      (y.neighbour ?? -Infinity) - (x.neighbour ?? -Infinity) ||
      x.model.localeCompare(y.model),
  );
}

function baselineRow(sizeBucket: string, list: readonly AssemblyRow[]): LeaderboardRow {
  const cache = new Map<string, ReturnType<typeof gridBaseline>>();
  const of = (r: AssemblyRow) => {
    const k = `${r.rows}x${r.cols}`;
    let b = cache.get(k);
    if (!b) cache.set(k, (b = gridBaseline(r.rows, r.cols)));
    return b;
  };
  const avg = (pick: (b: ReturnType<typeof gridBaseline>) => number | null): number | null => {
    const xs = finite(list.map((r) => pick(of(r))));
    return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null;
  };
  return {
    model: RANDOM_BASELINE,
    sizeBucket,
    baseline: true,
    descriptions: 0,
    f1: null,
    f1Low: null,
    f1High: null,
    assemblies: list.length,
    neighbour: avg((b) => b.neighbour),
    neighbourLow: null,
    neighbourHigh: null,
    direct: avg((b) => b.direct),
    directLow: null,
    directHigh: null,
    proximity: avg((b) => b.proximity),
    proximityLow: null,
    proximityHigh: null,
    sameFamilyAsJudge: false,
  };
}

/** Rows whose model is of the judge's family flagged (self-preference, issue 13 §5); the judge's family. */
export function flagSelfPreference(rows: readonly LeaderboardRow[], judgeModel: string | null, families: FamilyIndex): { judgeFamily: string | null; rows: LeaderboardRow[] } {
  if (judgeModel === null) return { judgeFamily: null, rows: [...rows] };
  return {
    judgeFamily: familyOf(families, judgeModel),
    rows: rows.map((r) => ({ ...r, sameFamilyAsJudge: !r.baseline && r.descriptions > 0 && sameFamily(families, judgeModel, r.model) })),
  };
}

/** Cached per version of the tables it reads (not labels); the bootstraps run on the report thread (see report-cache.ts, src/threads). */
export async function leaderboard(database: Database, f: ReportFilters = {}, opts: ReportOptions = {}): Promise<Leaderboard> {
  const o = seededOptions(opts);
  return cachedReport(database, reportKey('leaderboard', [filterKey(f), o]), async () => {
    const judge = await chooseJudge(database, f.judge);
    const [desc, asm, unattributed] = await Promise.all([descriptionRowsText(database, f, judge), assemblyRowsText(database, f), unattributedAnswers(database)]);
    const rows = await runInThread<LeaderboardRow[]>(REPORT_TASKS, 'leaderboardTask', { desc, asm, opts: o });
    const flagged = flagSelfPreference(rows, judge ? (judge.model ?? judge.slug) : null, loadFamilies());
    return { ...judgeInfo(judge), seed: o.seed!, judgeFamily: flagged.judgeFamily, rows: flagged.rows, unattributed };
  }, GRADED_TABLES);
}

const REPORT_TASKS = taskModule('report-tasks', import.meta.url);
