import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { judges } from '../../db/schema.ts';
import { notFound } from '../../domain/errors.ts';
import { SCALES, type LabelRow, type LabelScale } from '../../domain/labels.ts';
import { itemInstability, type ItemInstability, type VotedGrade } from '../../scoring/panel/index.ts';
import { isNewestBySlug } from './newest-grade.ts';
import type { HumansMode } from '../../domain/campaigns.ts';
import { answerLevelUnit, humansRows } from '../campaigns/calibration-humans.ts';
import { findRun } from './run-ref.ts';
import { dropExampleRows, exampleAnswers, excludedCount } from './example-exclusion.ts';

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
  /** Only grades of answers some human labelled (a report's units: a grade no human saw compares to nothing). */
  humanLabelledOnly?: boolean;
  /** The human side: each annotator (default), their majority, or adjudicated final labels (services/campaigns/humans.ts). */
  humans?: HumansMode;
}

const FILTERS = `($1::text is null or r.name = $1) and ($2::text is null or r.model = $2)`;

async function jsonArray<T>(database: Database, text: string, params: unknown[]): Promise<T[]> {
  // One JSON array per query: decoding many rows field by field is what costs on PGlite.
  return JSON.parse(String((await database.execute(text, params)).rows[0]!.j)) as T[];
}

type GradeFigures = { items: Array<{ id: string; verdict: string }> | null; label: string | null; f1: number | null };

/** A grade's figures as judge labels on the scale (or verdicts and label without one). */
function judgeLabels(scale: LabelScale | undefined, g: GradeFigures): Array<{ item?: string; label: string | number }> {
  const verdicts = () => (g.items ?? []).map((it) => ({ item: it.id, label: it.verdict }));
  if (scale === undefined) return [...(g.label !== null ? [{ label: g.label }] : []), ...verdicts()];
  if (scale === 'verdict') return verdicts();
  if (scale === 'binary') return g.label !== null && SCALES.binary.normalise(g.label) !== null ? [{ label: g.label }] : [];
  return g.f1 !== null ? [{ label: g.f1 }] : [];
}

export async function calibrationLabels(database: Database, q: CalibrationLabelQuery): Promise<LabelRow[]> {
  const params = [q.run ?? null, q.model ?? null];
  const answerKey = q.key === 'externalId' ? 'a.external_id' : 'a.id::text';
  const labels = await jsonArray<[string, string, string, string, string, string]>(
    database,
    `select coalesce(json_agg(json_build_array(${answerKey}, l.item_key, l.annotator, l.kind, l.label, r.model) order by a.id, l.item_key, l.annotator), '[]')::text as j
       from labels l join answers a on a.id = l.answer_id join runs r on r.id = a.run_id
      where ${FILTERS} and l.item_key not like 'claim:%'`,
    params,
  );
  // A campaign's binary and numeric labels are answer-level units of their own scale (answerLevelUnit).
  const rows: LabelRow[] = labels.flatMap(([answer, stored, rater, kind, label, model]) => {
    const item = answerLevelUnit(q.scale, stored);
    if (item === null) return [];
    return [{
      answer,
      ...(item ? { item } : {}),
      model,
      rater,
      kind: kind === 'judge' ? 'judge' : 'human',
      label: q.scale === 'numeric' && Number.isFinite(Number(label)) ? Number(label) : label,
    }];
  });
  const grades = await jsonArray<[string, GradeFigures['items'], string | null, number | null, string, string]>(
    database,
    `select coalesce(json_agg(json_build_array(${answerKey}, g.items, g.meta->>'label', g.f1, j.slug, r.model) order by a.id, j.slug), '[]')::text as j
       from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id join runs r on r.id = a.run_id
      where g.status = 'ok' and ${FILTERS} and ($3::text[] is null or j.slug = any($3::text[]))
        and ${isNewestBySlug()}
        and (not $4::boolean or exists (select 1 from labels l where l.answer_id = g.answer_id and l.kind = 'human'))`,
    [...params, q.judges ? [...q.judges] : q.judge !== undefined ? [q.judge] : null, q.humanLabelledOnly === true],
  );
  for (const [answer, items, label, f1, judge, model] of grades) {
    for (const l of judgeLabels(q.scale, { items, label, f1 })) rows.push({ answer, model, rater: judge, kind: 'judge', ...l });
  }
  // An anchored judge's own example answers are not calibration units for it (example-exclusion.ts).
  dropExampleRows(rows, await exampleAnswers(database, { key: q.key, run: q.run, model: q.model, judges: q.judges ?? (q.judge !== undefined ? [q.judge] : null) }));
  return q.humans && q.humans !== 'each' ? humansRows(database, rows, q) : rows;
}

/**
 * Labels for `assay calibrate --run R --judge J`: the run's stored labels and judge J's ok grades, keyed
 * by the answers' ids in the run. An unknown run, or a judge that graded nothing, is not found.
 */
export async function loadCalibrationLabels(database: Database, q: { run: string; judge: string }): Promise<LabelRow[]> {
  return (await loadRunCalibration(database, q)).rows;
}

export interface RunCalibration {
  rows: LabelRow[];
  /** The judges reported: J, and a panel's members (calibratedJudges). */
  judges: string[];
  /** A panel's per-item instability over the run; absent for a plain judge. */
  panelInstability?: ItemInstability[];
  /** The run's answers left out because the judge (or a panel's member) was shown them as examples. */
  excludedExamples: number;
}

/** Everything `assay calibrate --run R --judge J` reads, with the run and the judge looked up once. */
export async function loadRunCalibration(database: Database, q: { run: string; judge: string }): Promise<RunCalibration> {
  const run = await findRun(database, q.run);
  const slugs = await calibratedJudges(database, q.judge);
  const rows = await calibrationLabels(database, { key: 'externalId', run: run.name, judges: slugs });
  const excludedExamples = excludedCount(await exampleAnswers(database, { key: 'externalId', run: run.name, judges: slugs }), slugs);
  if (slugs.length === 1) return { rows, judges: slugs, excludedExamples };
  // A panel is calibrated beside its members: judge labels imported as labels under other names stay out.
  return { rows: rows.filter((r) => r.kind !== 'judge' || slugs.includes(r.rater)), judges: slugs, panelInstability: await panelInstability(database, run.id, q.judge), excludedExamples };
}

/**
 * The judges `assay calibrate --run R --judge J` reports: J, and when J is a panel its members too (the
 * judges row of a panel names them as its model, `a+b+c`), so the panel stands against humans beside each
 * member and judge-against-judge gives each member's kappa against the vote. Not found when J graded nothing.
 */
export async function calibratedJudges(database: Database, slug: string): Promise<string[]> {
  const rows = await database.db.select({ provider: judges.provider, model: judges.model }).from(judges).where(eq(judges.slug, slug));
  if (rows.length === 0) throw notFound(`judge '${slug}' has graded nothing (no such judge in the database)`);
  const members = rows.filter((r) => r.provider === 'panel').flatMap((r) => (r.model ?? '').split('+').filter(Boolean));
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
      where a.run_id = $1 and j.slug = $2 and j.provider = 'panel' and g.meta ? 'panel' and ${isNewestBySlug()}`,
    [runId, judge],
  );
  return itemInstability(null, rows);
}
