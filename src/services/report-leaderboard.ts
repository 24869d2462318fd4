import type { Database } from '../db/client.ts';
import { type FamilyIndex, familyOf, sameFamily, UNKNOWN_FAMILY } from '../domain/model-families.ts';
import { loadFamilies } from '../judges/families.ts';
import { gridBaseline } from '../scoring/grid/baseline.ts';
import { runInThread, taskModule } from '../threads/pool.ts';
import { cachedPart, cachedReport, reportKey } from './report-cache.ts';
import { GRADED_TABLES } from './report-inputs.ts';
import { ASSEMBLY_TABLES, assemblyFacts, DESCRIPTION_TABLES, descriptionFacts, policyNote } from './report-facts.ts';
import { reportPolicy, type PolicyInfo } from './report-policy.ts';
import { chooseJudge, filterKey, judgeInfo, type AssemblyRow, type DescriptionRow, type JudgeInfo, type ReportFilters } from './report-data.ts';
import { NO_MODEL } from '../domain/answers.ts';
import { assemblyBucket, compareBuckets, descriptionBucket, finite, groupInto, meanColumnsMany, seededOptions, type ReportOptions } from './report-stats.ts';
import { unattributedAnswers } from './report-models.ts';

/**
 * Leaderboard per model × puzzle size bucket (plus "all"): mean description F1 (ok grades of one
 * judge) and mean neighbour, direct and proximity of scored assemblies, each with a 95% bootstrap
 * interval over answers; and per bucket a "random baseline" row: the expected scores of a uniformly
 * random arrangement (design §2.2), averaged over the bucket's scored assembly answers. Answers whose
 * model call failed (status error) are in no mean and counted per row in `errors`.
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
  /**
   * Of `assemblies`, the answers stored no_answer (no output): scored invalid, every metric 0, and in the
   * means (design §2.2: a non-answer is a wrong assembly), so the board says how many. 0 on baseline rows.
   */
  noAnswer: number;
  /**
   * Answers stored with status error (the model call failed): no answer, so in no mean — neither in
   * `descriptions` nor in `assemblies` (a grade or score stored for one is not read: report-facts.ts). A
   * describe-then-solve answer counts once. 0 on baseline rows.
   */
  errors: number;
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

export interface Leaderboard extends JudgeInfo, PolicyInfo {
  seed: number;
  /** The judge's model family (judges/families.yaml; `unknown` when no prefix matches); null when nothing is graded. */
  judgeFamily: string | null;
  rows: LeaderboardRow[];
  /** Answers left off because their run names no model (ad hoc text graded without one): never a model "unknown". */
  unattributed: number;
}

const SEP = '\u0000';

export function buildLeaderboard(desc: readonly DescriptionRow[], asm: readonly AssemblyRow[], opts: ReportOptions = {}): LeaderboardRow[] {
  return joinHalves(descriptionHalf(desc, opts), assemblyHalf(asm, opts));
}

/**
 * The board in two halves: the description columns (grades) and the assembly columns (scores) are
 * computed, and cached, apart — a regrade recomputes the F1 half only. Each half lists its model ×
 * bucket keys in first-seen order (rows in answer order), with the cells of each key.
 */
export interface BoardHalf<C> {
  keys: string[];
  cells: C[];
}
/** Each half's error answers by id (errorIds), so a describe-then-solve answer in both halves is one error of the row. */
type DescriptionCells = Pick<LeaderboardRow, 'descriptions' | 'f1' | 'f1Low' | 'f1High'> & { errorIds: number[] };
type AssemblyCells = Pick<LeaderboardRow, 'assemblies' | 'noAnswer' | 'neighbour' | 'neighbourLow' | 'neighbourHigh' | 'direct' | 'directLow' | 'directHigh' | 'proximity' | 'proximityLow' | 'proximityHigh'> & { errorIds: number[] };
export type DescriptionHalf = BoardHalf<DescriptionCells>;
export type AssemblyHalf = BoardHalf<AssemblyCells> & { baselines: LeaderboardRow[] };

const keysOf = (model: string, bucket: string) => [`${model}${SEP}${bucket}`, `${model}${SEP}all`];

/** An answer whose model call failed (status error): in no mean, counted in the row's `errors`. */
const isError = (x: { answerStatus: string }) => x.answerStatus === 'error';

export function descriptionHalf(desc: readonly Pick<DescriptionRow, 'answerId' | 'model' | 'sizeBucket' | 'f1' | 'answerStatus'>[], opts: ReportOptions = {}): DescriptionHalf {
  const attributed = desc.filter((d) => d.model !== NO_MODEL);
  const keyOf = (x: (typeof desc)[number]) => keysOf(x.model, descriptionBucket(x.sizeBucket));
  // The facts carry no grade of an error answer; the filter keeps the half right on rows built by hand too.
  const d = groupInto(attributed.filter((x) => x.f1 !== null && !isError(x)), keyOf);
  const e = groupInto(attributed.filter(isError), keyOf);
  const keys = [...new Set([...d.keys(), ...e.keys()])];
  // Every interval of the half in one batch (meanColumnsMany: the same numbers as one meanColumns each).
  const columns = meanColumnsMany(keys.map((k) => ['f1', finite((d.get(k) ?? []).map((x) => x.f1))] as const), opts);
  return {
    keys,
    cells: keys.map((k, i) => ({
      descriptions: d.get(k)?.length ?? 0,
      ...(columns[i] as Pick<LeaderboardRow, 'f1' | 'f1Low' | 'f1High'>),
      errorIds: (e.get(k) ?? []).map((x) => x.answerId),
    })),
  };
}

export function assemblyHalf(asm: readonly AssemblyRow[], opts: ReportOptions = {}): AssemblyHalf {
  const attributed = asm.filter((x) => x.model !== NO_MODEL);
  const keyOf = (x: AssemblyRow) => keysOf(x.model, assemblyBucket(x));
  // The facts carry no score of an error answer; the filter keeps the half right on rows built by hand too.
  const scored = attributed.filter((x) => x.scoreStatus !== null && !isError(x));
  const a = groupInto(scored, keyOf);
  const e = groupInto(attributed.filter(isError), keyOf);
  const keys = [...new Set([...a.keys(), ...e.keys()])];
  const specs = keys.flatMap((k) => {
    const as = a.get(k) ?? [];
    return [
      ['neighbour', finite(as.map((x) => x.neighbour))],
      ['direct', finite(as.map((x) => x.direct))],
      ['proximity', finite(as.map((x) => x.proximity))],
    ] as const;
  });
  const columns = meanColumnsMany(specs, opts);
  const cells = keys.map((k, i) => ({
    assemblies: a.get(k)?.length ?? 0,
    noAnswer: (a.get(k) ?? []).filter((x) => x.answerStatus === 'no_answer').length,
    errorIds: (e.get(k) ?? []).map((x) => x.answerId),
    ...(columns[3 * i] as Pick<LeaderboardRow, 'neighbour' | 'neighbourLow' | 'neighbourHigh'>),
    ...(columns[3 * i + 1] as Pick<LeaderboardRow, 'direct' | 'directLow' | 'directHigh'>),
    ...(columns[3 * i + 2] as Pick<LeaderboardRow, 'proximity' | 'proximityLow' | 'proximityHigh'>),
  }));
  const baselines = [...groupInto(scored, (x) => [assemblyBucket(x), 'all'])].map(([bucket, list]) => baselineRow(bucket, list));
  return { keys, cells, baselines };
}

const NO_DESCRIPTIONS: DescriptionCells = { descriptions: 0, f1: null, f1Low: null, f1High: null, errorIds: [] };
const NO_ASSEMBLIES: AssemblyCells = {
  assemblies: 0,
  noAnswer: 0,
  errorIds: [],
  neighbour: null,
  neighbourLow: null,
  neighbourHigh: null,
  direct: null,
  directLow: null,
  directHigh: null,
  proximity: null,
  proximityLow: null,
  proximityHigh: null,
};

/** The board from its halves: a row per key of either (descriptions' keys first), then the baselines, sorted. */
export function joinHalves(dh: DescriptionHalf, ah: AssemblyHalf): LeaderboardRow[] {
  const dCells = new Map(dh.keys.map((k, i) => [k, dh.cells[i]!]));
  const aCells = new Map(ah.keys.map((k, i) => [k, ah.cells[i]!]));
  const rows: LeaderboardRow[] = [...new Set([...dh.keys, ...ah.keys])].map((key) => {
    const [model, sizeBucket] = key.split(SEP) as [string, string];
    const dc = dCells.get(key) ?? NO_DESCRIPTIONS;
    const ac = aCells.get(key) ?? NO_ASSEMBLIES;
    return {
      model,
      sizeBucket,
      baseline: false,
      descriptions: dc.descriptions,
      f1: dc.f1,
      f1Low: dc.f1Low,
      f1High: dc.f1High,
      assemblies: ac.assemblies,
      noAnswer: ac.noAnswer,
      errors: new Set([...dc.errorIds, ...ac.errorIds]).size,
      neighbour: ac.neighbour,
      neighbourLow: ac.neighbourLow,
      neighbourHigh: ac.neighbourHigh,
      direct: ac.direct,
      directLow: ac.directLow,
      directHigh: ac.directHigh,
      proximity: ac.proximity,
      proximityLow: ac.proximityLow,
      proximityHigh: ac.proximityHigh,
      sameFamilyAsJudge: false,
    };
  });
  rows.push(...ah.baselines.map((b) => ({ ...b })));
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
    noAnswer: 0,
    errors: 0,
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

/**
 * Rows whose model is of the judge's family flagged (self-preference, issue 13 §5); the judge's family. A
 * panel judge is given as its members' models: it is of each of their (known) families, `a+b` in member
 * order, and a row of any of them is flagged.
 */
export function flagSelfPreference(rows: readonly LeaderboardRow[], judgeModel: string | readonly string[] | null, families: FamilyIndex): { judgeFamily: string | null; rows: LeaderboardRow[] } {
  if (judgeModel === null) return { judgeFamily: null, rows: [...rows] };
  if (typeof judgeModel === 'string') {
    return {
      judgeFamily: familyOf(families, judgeModel),
      rows: rows.map((r) => ({ ...r, sameFamilyAsJudge: !r.baseline && r.descriptions > 0 && sameFamily(families, judgeModel, r.model) })),
    };
  }
  const known = [...new Set(judgeModel.map((m) => familyOf(families, m)).filter((f) => f !== UNKNOWN_FAMILY))];
  return {
    judgeFamily: known.length ? known.join('+') : UNKNOWN_FAMILY,
    rows: rows.map((r) => ({ ...r, sameFamilyAsJudge: !r.baseline && r.descriptions > 0 && known.includes(familyOf(families, r.model)) })),
  };
}

/** The models a judge's grades come from: its own, or a panel's members' (its judges row names their config hashes). */
async function judgeModels(database: Database, judge: { id: number; slug: string; provider: string; model: string | null }): Promise<string | string[]> {
  if (judge.provider !== 'panel') return judge.model ?? judge.slug;
  const r = await database.execute(
    `select m.model from judges p cross join lateral jsonb_array_elements_text(case when jsonb_typeof(p.config->'memberHashes') = 'array' then p.config->'memberHashes' else '[]'::jsonb end) with ordinality h(hash, n)
       join judges m on m.config_hash = h.hash where p.id = $1 order by h.n`,
    [judge.id],
  );
  return r.rows.map((x) => String(x.model ?? ''));
}

/**
 * Cached per version of the tables it reads (not labels); each half per version of its own tables, its
 * bootstraps on the report thread (see report-cache.ts, report-facts.ts, src/threads).
 */
export async function leaderboard(database: Database, f: ReportFilters = {}, opts: ReportOptions = {}): Promise<Leaderboard> {
  const o = seededOptions(opts);
  return cachedReport(database, reportKey('leaderboard', [filterKey(f), o]), async () => {
    const judge = await chooseJudge(database, f.judge);
    const scope = [f.run ?? null, f.model ?? null, f.rubric ?? null, o];
    const [dh, ah, unattributed, policy] = await Promise.all([
      cachedPart(
        database,
        // The F1 half is of one unverifiable-claims policy (report-policy.ts): its key says which.
        reportKey('leaderboard:descriptions', [...scope, judge?.id ?? null, reportPolicy(f.unverifiable)]),
        async () => runInThread<DescriptionHalf>(REPORT_TASKS, 'descriptionHalfTask', { desc: await descriptionFacts(database, f, judge), opts: o }),
        DESCRIPTION_TABLES,
      ),
      cachedPart(
        database,
        reportKey('leaderboard:assemblies', scope),
        async () => runInThread<AssemblyHalf>(REPORT_TASKS, 'assemblyHalfTask', { asm: await assemblyFacts(database, f), opts: o }),
        ASSEMBLY_TABLES,
      ),
      unattributedAnswers(database, f),
      policyNote(database, f, judge),
    ]);
    const flagged = flagSelfPreference(joinHalves(dh, ah), judge ? await judgeModels(database, judge) : null, loadFamilies());
    return { ...judgeInfo(judge), ...policy, seed: o.seed!, judgeFamily: flagged.judgeFamily, rows: flagged.rows, unattributed };
  }, GRADED_TABLES);
}

const REPORT_TASKS = taskModule('report-tasks', import.meta.url);
