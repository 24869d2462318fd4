import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { judges } from '../../db/schema.ts';
import { notFound } from '../../domain/errors.ts';
import { JUDGES_DIR } from '../../judges/config.ts';
import { policyInfo, reportPolicy, type PolicyInfo } from '../report-policy.ts';
import type { UnverifiablePolicy } from '../../scoring/description/score.ts';
import { FILTERS, IN_CAMPAIGN, judgeGradeRows } from './calibration-judge-grades.ts';
import { SCALES, type LabelRow, type LabelScale } from '../../domain/labels.ts';
import { noJudgeSideNote, setAsideNote } from '../calibration-notes.ts';
import { itemInstability, type ItemInstability, type VotedGrade } from '../../scoring/panel/index.ts';
import { isNewestBySlug } from './newest-grade.ts';
import type { HumansMode } from '../../domain/campaigns.ts';
import { answerLevelUnit, humansRows } from '../campaigns/calibration-humans.ts';
import { findRun } from './run-ref.ts';
import { cachedPart, reportKey, type ReportTable } from '../report-cache.ts';
import { inRubricSql } from './rubric-scope.ts';
import { nameRubrics } from './answer-rubrics.ts';
import { dropExampleRows, exampleAnswers, excludedCount } from './example-exclusion.ts';
import { onePerPerson, voteUnit, type StoredLabel } from './calibration-votes.ts';
import { settleVersions, versionNotes, versionTexts, type LabelVersionFacts, type VersionedRow } from './label-versions.ts';
import { isErrorAnswer, notOfErrorAnswer } from '../report-facts.ts';
import { errorAnswersNote } from '../error-answers.ts';

/**
 * Calibration label rows from stored data — the one builder behind `assay calibrate --run R --judge J`
 * and the calibration report pages: every stored label (human, and judge labels imported as labels)
 * plus judges' ok grades as kind "judge", rater = the judge's slug. Claim marks from the annotation
 * pages (item claim:<n>) are not calibration units.
 */

export interface CalibrationLabelQuery {
  /**
   * How rows name their answer: 'externalId' — the answer's id in its run, as label files name it
   * (one run at a time); 'answerId' — the database id, unique across runs (reports over many runs).
   */
  key: 'externalId' | 'answerId';
  run?: string;
  model?: string;
  /** Only answers of this rubric (slug): a description's own rubric, an assembly's its puzzle's. */
  rubric?: string;
  /** One judge's grades (slug); default every judge's. */
  judge?: string;
  /** Several judges' grades (slugs), instead of `judge`: a panel and its members. */
  judges?: readonly string[];
  /**
   * Which figures of a grade become judge labels: for a scale, those on it (verdict: item verdicts;
   * binary: the reference-match label; numeric: f1, and stored labels read as numbers); without one,
   * item verdicts and the reference-match label both.
   */
  scale?: LabelScale;
  /** Only grades of answers some human labelled — on `scale` when one is given (a report's units: a grade no human saw compares to nothing). */
  humanLabelledOnly?: boolean;
  /** The human side: each annotator (default), their majority, or adjudicated final labels (services/campaigns/humans.ts). */
  humans?: HumansMode;
  /**
   * One campaign (its row id): its answers, and of the people's labels those of annotators holding the
   * answer, given in it or plain where it has none of theirs for the unit (campaigns/campaign-labels.ts);
   * default every label, the newest of each person's labels of a unit standing.
   */
  campaign?: number;
  /** The unverifiable-claims policy of the judges' F1 on the numeric scale (report-policy.ts; default count). */
  unverifiable?: UnverifiablePolicy;
}

/** The rows and what was left out or kept unchecked on the way (label-versions.ts): for the report's notes. */
export interface CalibrationLabelSet {
  rows: LabelRow[];
  versions: LabelVersionFacts;
  /** The unverifiable-claims policy the judges' F1 is read under, and the grades it left out (numeric scale; report-policy.ts). */
  policy: PolicyInfo;
  /**
   * Answers in scope stored with status error (the model call failed) that hold a label or a judge's ok
   * grade: none of their rows is read (error-answers.ts), a reader's notes say how many (errorAnswersNote).
   */
  errorAnswers: number;
}

const JUDGE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;


/**
 * What the stored-labels query reads. Its rows are filed apart from the grades (a part of their own,
 * shared, never copied: nothing below changes them), so that a regrade re-reads the judges' side only,
 * not every label again: ~27 of the ~60 ms the calibration rows take over 10,000 answers.
 */
const LABEL_TABLES = ['runs', 'answers', 'labels', 'campaign_answers', 'campaign_assignments', 'rubrics', 'puzzles'] as const satisfies readonly ReportTable[];

async function jsonArray<T>(database: Database, text: string, params: unknown[]): Promise<T[]> {
  // One JSON array per query: decoding many rows field by field is what costs on PGlite.
  return JSON.parse(String((await database.execute(text, params)).rows[0]!.j)) as T[];
}

/** The rows only: for readers that state no notes of their own (calibrationLabelSet says what was left out). */
export async function calibrationLabels(database: Database, q: CalibrationLabelQuery): Promise<LabelRow[]> {
  return (await calibrationLabelSet(database, q)).rows;
}

/** Every calibration row of the query, with what was left out or kept unchecked (label-versions.ts). */
export async function calibrationLabelSet(database: Database, q: CalibrationLabelQuery): Promise<CalibrationLabelSet> {
  const params = [q.run ?? null, q.model ?? null];
  const answerKey = q.key === 'externalId' ? 'a.external_id' : 'a.id::text';
  const labelQuery = { key: q.key, run: q.run ?? null, model: q.model ?? null, campaign: q.campaign ?? null, rubric: q.rubric ?? null };
  const stored = await cachedPart(database, reportKey('calibration-stored-labels', labelQuery), () => jsonArray<StoredLabel>(
    database,
    `select coalesce(json_agg(json_build_array(${answerKey}, a.id, l.item_key, l.annotator, l.kind, l.label, r.model, l.campaign_id, l.rubric_version_id,
                                               extract(epoch from l.created_at), l.id) order by a.id, l.item_key, l.annotator, l.id), '[]')::text as j
       from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id
      where ${FILTERS} and l.item_key not like 'claim:%' and ${IN_CAMPAIGN('a')} and ${inRubricSql('a', 4)} ${notOfErrorAnswer('l')}
        and ($3::int is null or ((l.campaign_id = $3 or l.campaign_id is null)
             and (l.kind = 'judge' or exists (select 1 from campaign_assignments x where x.campaign_id = $3 and x.answer_id = a.id and x.annotator = l.annotator))))`,
    [...params, q.campaign ?? null, q.rubric ?? null],
  ), LABEL_TABLES);
  // Only units of the report's scale count as set aside: another scale's labels are no units of it anyway.
  const isUnit = (key: string) => {
    const item = answerLevelUnit(q.scale, key);
    return item !== null && (q.scale === undefined || (q.scale === 'verdict') === (item !== ''));
  };
  const { kept: labels, superseded } = onePerPerson(stored, q.campaign, isUnit, (l) => voteUnit(q.scale, l[2], l[5]));
  // A campaign's binary and numeric labels are answer-level units of their own scale (answerLevelUnit).
  const versioned: VersionedRow[] = labels.flatMap(([answer, answerId, key, rater, kind, label, model, , versionId]) => {
    const item = answerLevelUnit(q.scale, key);
    if (item === null) return [];
    const row: LabelRow = {
      answer,
      ...(item ? { item } : {}),
      model,
      rater,
      kind: kind === 'judge' ? 'judge' : 'human',
      label: q.scale === 'numeric' && Number.isFinite(Number(label)) ? Number(label) : label,
    };
    return [{ row, answerId, versionId }];
  });
  const rows = versioned.map((v) => v.row);
  // On a scale, "answers some human labelled" means labelled on that scale: a judge's F1 beside an
  // answer people gave only item verdicts is a unit of the numeric report that compares to nothing.
  const onScale = q.scale && q.humanLabelledOnly ? new Set(rowsOnScale(rows.filter((r) => r.kind === 'human'), q.scale).kept.map((r) => r.answer)) : null;
  const policy = reportPolicy(q.unverifiable);
  const judgeQuery = { ...labelQuery, judges: q.judges ? [...q.judges] : q.judge !== undefined ? [q.judge] : null, humanLabelledOnly: q.humanLabelledOnly === true, scale: q.scale, policy };
  // An anchored judge's own example answers are not calibration units for it (example-exclusion.ts): dropped
  // below, and not counted as grades the policy left out.
  const examples = await exampleAnswers(database, { key: q.key, run: q.run, model: q.model, rubric: q.rubric, judges: q.judges ?? (q.judge !== undefined ? [q.judge] : null) });
  const judged = await judgeGradeRows(database, judgeQuery, answerKey, onScale, examples);
  versioned.push(...judged.rows);
  const errorAnswers = await errorAnswersLeftOut(database, judgeQuery);
  // Each row names its answer's rubric: the per-item figures are per (rubric, item) (answer-rubrics.ts).
  await nameRubrics(database, versioned);
  // A label of an item is compared only with rows given against the same wording of it (label-versions.ts);
  // on the binary and numeric scales item rows are no units (rowsOnScale sets them aside), so nothing to check.
  const itemScale = q.scale === undefined || q.scale === 'verdict';
  const texts = itemScale ? await versionTexts(database, versioned.flatMap((v) => (v.versionId === null || v.row.item === undefined ? [] : [v.versionId]))) : new Map();
  // Dropped before the wording is settled: a row out of the report decides no unit's reference wording
  // (else a judge's example grade of a newer version left the people's labels of the answer out) and is
  // no row left out for its version.
  const inReport = versioned.map((v) => v.row);
  dropExampleRows(inReport, examples);
  const stays = new Set(inReport);
  const scoped = versioned.filter((v) => stays.has(v.row));
  const { kept, textChanged, unknown } = itemScale ? settleVersions(scoped, texts) : { kept: scoped.map((v) => v.row), textChanged: 0, unknown: 0 };
  const versions = { textChanged, unknown, superseded };
  // Only the numeric scale reads F1, so only its report is under a policy that can leave grades out.
  const policyFacts = policyInfo(policy, q.scale === 'numeric' ? judged.leftOut : 0);
  if (!q.humans || q.humans === 'each') return { rows: kept, versions, policy: policyFacts, errorAnswers };
  // The human side is formed from the scale's rows; the rest pass through to be set aside and counted
  // where the report reads its scale, as `assay calibrate --run --humans` counts them (applyHumans drops them unsaid).
  const on = q.scale ? new Set(rowsOnScale(kept, q.scale).kept) : new Set(kept);
  return { rows: [...(await humansRows(database, [...on], q)), ...kept.filter((r) => !on.has(r))], versions, policy: policyFacts, errorAnswers };
}

/** The error answers of the scope holding a stored label (not a claim mark) or an ok grade of the judges read: rows left out. */
async function errorAnswersLeftOut(database: Database, q: { run: string | null; model: string | null; campaign: number | null; rubric: string | null; judges: string[] | null }): Promise<number> {
  const r = await database.execute(
    `select count(*)::int as n from answers a join runs r on r.id = a.run_id
      where ${isErrorAnswer('a.id')} and ${FILTERS} and ${IN_CAMPAIGN('a')} and ${inRubricSql('a', 4)}
        and (exists (select 1 from labels l where l.answer_id = a.id and l.item_key not like 'claim:%')
             or exists (select 1 from grades g join judges j on j.id = g.judge_id where g.answer_id = a.id and g.status = 'ok' and ($5::text[] is null or j.slug = any($5::text[]))))`,
    [q.run, q.model, q.campaign, q.rubric, q.judges],
  );
  return Number(r.rows[0]!.n);
}

/**
 * Labels for `assay calibrate --run R --judge J`: the run's stored labels and judge J's ok grades of the
 * answers people labelled, keyed by the answers' ids in the run. An unknown run, or a judge that names
 * nothing (no stored grade, no file in judges/), is not found.
 */
export async function loadCalibrationLabels(database: Database, q: RunCalibrationQuery): Promise<LabelRow[]> {
  return (await loadRunCalibration(database, q)).rows;
}

/**
 * The rows of one scale only (pure): item rows on the verdict scale, whole-answer rows on the binary and
 * numeric scales, each with a label the scale reads. A run holds labels of every scale side by side
 * (item verdicts, `answer:binary`, `answer:numeric`, imported answer-level labels); each report reads
 * its own and sets the rest aside, as the calibration page does.
 */
export function rowsOnScale(rows: readonly LabelRow[], scale: LabelScale): { kept: LabelRow[]; setAside: number } {
  const kept = rows.filter((r) => (scale === 'verdict') === (r.item !== undefined) && SCALES[scale].normalise(r.label) !== null);
  return { kept, setAside: rows.length - kept.length };
}

/**
 * What a judge's grade says on each scale (docs/analysis.md, "A stored run"): its item verdicts
 * (verdict), a reference-match judge's whole-answer label (binary), its F1 (numeric). A judge with no
 * figure of the scale among the run's grades of labelled answers has an empty side: the people's figures
 * stand, and the notes name the judge, as GET /api/reports/calibration and the page say it
 * (report-tasks.ts pageCalibrationTask); the CLI's text adds what the judge side of the scale is.
 */
const JUDGE_SIDE: Readonly<Record<LabelScale, string>> = {
  verdict: 'item verdicts',
  binary: "a whole-answer pass/fail label, which only a reference-match judge gives (mode: reference-match); a rubric judge's item verdicts are read with --scale verdict",
  numeric: 'an F1 score, which only a rubric judge gives',
};


/** On the numeric scale the judge's F1 (0–1) stands beside the people's ratings, which may run on another scale. */
function numericNote(rows: readonly LabelRow[], slugs: readonly string[]): string[] {
  const judged = rows.filter((r) => r.kind === 'judge' && slugs.includes(r.rater));
  if (judged.length === 0 || !rows.some((r) => r.kind === 'human' && Number(r.label) > 1)) return [];
  return [`the judges' values are F1 (0 to 1), the people's are ratings on their own scale: read Pearson r and Spearman (unchanged by a change of scale); bias and MAE compare different units`];
}

export interface RunCalibrationQuery {
  run: string;
  judge: string;
  scale?: LabelScale;
  /** The policy of the judge's F1 on the numeric scale (report-policy.ts; default count). */
  unverifiable?: UnverifiablePolicy;
}

export interface RunCalibration {
  /** The policy the judge's F1 is read under and, on the numeric scale, what it left out (also in notes), as the API's report says it. */
  policy?: PolicyInfo;
  rows: LabelRow[];
  /** The judges reported: J, and a panel's members (calibratedJudges). */
  judges: string[];
  /** False when J has no label among the rows (it graded none of the labelled answers on the scale): the rows are the people's only. */
  judged: boolean;
  /** A panel's per-item instability over the run; absent for a plain judge. */
  panelInstability?: ItemInstability[];
  /** The run's answers left out because the judge (or a panel's member) was shown them as examples. */
  excludedExamples: number;
  /** With a scale: the run's stored labels and judge figures of other scales, set aside (rowsOnScale). */
  setAside?: number;
  /** What the report should say about the judge side on this scale and the rows left out for their rubric version (added to the report's notes). */
  notes?: string[];
  /** When J has no side: what a judge's side is on the scale (for the CLI's text, after the report). */
  judgeSide?: string;
}

/**
 * Everything `assay calibrate --run R --judge J` reads, with the run and the judge looked up once: the
 * rows GET /api/reports/calibration?run=R&judge=J reads (calibrationLabelSet with humanLabelledOnly: a
 * grade of an answer no person labelled compares to nothing and is no unit of the report), keyed by the
 * answers' ids in the run.
 */
export async function loadRunCalibration(database: Database, q: RunCalibrationQuery): Promise<RunCalibration> {
  const run = await findRun(database, q.run);
  const slugs = await calibratedJudges(database, q.judge, run.id);
  const set = await calibrationLabelSet(database, { key: 'externalId', run: run.name, judges: slugs, humanLabelledOnly: true, ...(q.scale ? { scale: q.scale } : {}), ...(q.unverifiable ? { unverifiable: q.unverifiable } : {}) });
  const all = set.rows;
  // Without a scale every row comes back (the caller's scale check names the first foreign label).
  const { kept, setAside } = q.scale ? rowsOnScale(all, q.scale) : { kept: all, setAside: 0 };
  const judged = !q.scale || kept.some((r) => r.kind === 'judge' && r.rater === slugs[0]);
  // No side of J: the people's report alone (no other judge stands in for it), as the stored calibration reads it.
  const rows = judged ? kept : kept.filter((r) => r.kind === 'human');
  const notes = [
    ...(q.scale && !judged ? [noJudgeSideNote(slugs[0]!, q.scale)] : []),
    ...(q.scale ? setAsideNote(setAside, q.scale) : []),
    ...(q.scale === 'numeric' ? numericNote(rows, slugs) : []),
    ...versionNotes(set.versions),
    ...(set.policy.unverifiableNote ? [set.policy.unverifiableNote] : []),
    ...errorAnswersNote(set.errorAnswers),
  ];
  const scaleFacts = { policy: set.policy, ...(q.scale ? { setAside, notes } : notes.length ? { notes } : {}), ...(q.scale && !judged ? { judgeSide: `on the ${q.scale} scale a judge's side is ${JUDGE_SIDE[q.scale]}` } : {}) };
  const excludedExamples = excludedCount(await exampleAnswers(database, { key: 'externalId', run: run.name, judges: slugs }), slugs);
  if (slugs.length === 1) return { rows, judges: slugs, judged, excludedExamples, ...scaleFacts };
  // A panel is calibrated beside its members: judge labels imported as labels under other names stay out.
  return { rows: rows.filter((r) => r.kind !== 'judge' || slugs.includes(r.rater)), judges: slugs, judged, panelInstability: await panelInstability(database, run.id, q.judge), excludedExamples, ...scaleFacts };
}

/**
 * A judge with no judges row is a judge with no grades when judges/ has its file (filter-values.ts, as the
 * API's `judge` filter reads it); otherwise it names nothing: not found.
 */
async function requireJudgeFile(slug: string): Promise<void> {
  if (JUDGE_ID.test(slug) && existsSync(join(JUDGES_DIR, `${slug}.yaml`))) return;
  throw notFound(`judge '${slug}' has graded nothing (no such judge in the database, and no file in judges/ has that judge id)`);
}

/** Not found unless the judge has a judges row or a file in judges/ (calibration-order.ts, calibration-reliability.ts). */
export async function requireCalibrationJudge(database: Database, slug: string): Promise<void> {
  const known = await database.db.select({ id: judges.id }).from(judges).where(eq(judges.slug, slug)).limit(1);
  if (known.length === 0) await requireJudgeFile(slug);
}

/**
 * The judges `assay calibrate --run R --judge J` reports: J, and when J is a panel its members too (the
 * judges row of a panel names them as its model, `a+b+c`), so the panel stands against humans beside each
 * member and judge-against-judge gives each member's kappa against the vote. With a run, the members are
 * those of the panel configurations whose grades of the run are the ones read (the newest per answer): a
 * member the file listed once, whose configuration graded the run again without it, voted on none of them.
 * Not found when J names nothing: no judges row and no file in judges/ (a file's judge that graded nothing is J alone).
 */
export async function calibratedJudges(database: Database, slug: string, runId?: number): Promise<string[]> {
  const rows = await database.db.select({ provider: judges.provider, model: judges.model }).from(judges).where(eq(judges.slug, slug));
  if (rows.length === 0) return requireJudgeFile(slug).then(() => [slug]);
  const read =
    runId === undefined
      ? []
      : (
          await database.execute(
            `select j.model from judges j where j.slug = $1 and j.provider = 'panel' and exists (select 1 from grades g join answers a on a.id = g.answer_id
                where g.judge_id = j.id and a.run_id = $2 and ${isNewestBySlug()}) order by j.id`,
            [slug, runId],
          )
        ).rows.map((r) => ({ provider: 'panel', model: r.model as string | null }));
  // A panel that graded none of the run's answers: every configuration's members, as without a run.
  const members = (read.length ? read : rows.filter((r) => r.provider === 'panel')).flatMap((r) => (r.model ?? '').split('+').filter(Boolean));
  return [slug, ...new Set(members.filter((m) => m !== slug))];
}

/**
 * Per rubric item, how unstable a panel's vote is over a run: the share of its ok samples, pooled over
 * the run's quorate panel grades, that disagree with the vote (from each grade's stored report).
 */
async function panelInstability(database: Database, runId: number, judge: string): Promise<ItemInstability[]> {
  const rows = await jsonArray<VotedGrade>(
    database,
    `select coalesce(json_agg(json_build_object('status', g.status, 'items', g.meta->'panel'->'items') order by a.id), '[]')::text as j
       from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id
      where a.run_id = $1 and j.slug = $2 and j.provider = 'panel' and g.meta ? 'panel' and ${isNewestBySlug()} ${notOfErrorAnswer('g')}`,
    [runId, judge],
  );
  return itemInstability(null, rows);
}
