import type { Database } from '../db/client.ts';
import { notFound } from '../domain/errors.ts';
import type { UnverifiablePolicy } from '../scoring/description/score.ts';
import { cachedPart, reportKey } from './report-cache.ts';
import { reportPolicy } from './report-policy.ts';
import { assemblyFacts, descriptionFacts } from './report-facts.ts';
import { assemblyRowsOf, descriptionRowsOf } from './report-rows.ts';

/**
 * The rows every report is computed from: description answers with the grade of one judge, and assembly
 * answers with their stored score (read as facts: report-facts.ts). Reports then aggregate in memory with
 * the pure stats code, so PGlite and PostgreSQL give identical numbers.
 */

export interface ReportFilters {
  run?: string;
  model?: string;
  rubric?: string;
  /** Judge slug; default: the judge with the most ok grades. */
  judge?: string;
  /** The unverifiable-claims policy description F1 is read under (report-policy.ts); default: the grading default, count. */
  unverifiable?: UnverifiablePolicy;
}

/** What every report row knows about its answer and run. */
interface AnswerRowBase {
  answerId: number;
  externalId: string;
  run: string;
  model: string;
  effort: string | null;
  tags: string[];
  answerStatus: string;
  outputTokens: number | null;
}

export interface DescriptionRow extends AnswerRowBase {
  puzzleId: number | null;
  rubricId: number | null;
  sizeBucket: string | null;
  /** null when this answer has no ok grade from the chosen judge. */
  f1: number | null;
  gradeStatus: string | null;
  truthOrientation: string | null;
  statedOrientation: string | null;
  orientationCorrect: boolean | null;
  pieceCountError: number | null;
}

export interface AssemblyRow extends AnswerRowBase {
  puzzleId: number;
  puzzle: string;
  puzzleRubricId: number | null;
  rows: number;
  cols: number;
  sizeBucket: string | null;
  /** null when the answer has not been scored. */
  scoreStatus: string | null;
  direct: number | null;
  neighbour: number | null;
  adjacency: number | null;
  proximity: number | null;
  exactMatch: number | null;
}

export interface JudgeRef {
  id: number;
  slug: string;
  provider: string;
  /** The judge's model (judges.model), for the self-preference flag; null for a judge without one. */
  model: string | null;
}

/** What every report says about the judge behind its grades (issue 5: the lexical baseline says so). */
export interface JudgeInfo {
  /** Slug of the judge whose grades the report uses; null when nothing is graded. */
  judge: string | null;
  /** True when that judge is the lexical baseline (no provider key): scores are a floor. */
  judgeBaseline: boolean;
  /** A sentence to show beside the report; null for an LLM judge. */
  judgeNote: string | null;
}

export const LEXICAL_BASELINE_NOTE = 'lexical baseline judge — offline word overlap, not an LLM';

const isBaselineProvider = (provider: string) => provider === 'lexical';

export function judgeInfo(judge: JudgeRef | null): JudgeInfo {
  const baseline = judge !== null && isBaselineProvider(judge.provider);
  return { judge: judge?.slug ?? null, judgeBaseline: baseline, judgeNote: baseline ? LEXICAL_BASELINE_NOTE : null };
}

/** Of the given judge slugs, those that name the lexical baseline, each with the note to show. */
export async function baselineNotes(database: Database, slugs: readonly string[]): Promise<Record<string, string>> {
  if (slugs.length === 0) return {};
  const r = await database.execute(`select distinct slug, provider from judges where slug = any($1::text[])`, [[...slugs]]);
  return Object.fromEntries(r.rows.filter((x) => isBaselineProvider(String(x.provider))).map((x) => [String(x.slug), LEXICAL_BASELINE_NOTE]));
}

/**
 * The judge whose grades a report uses: the named one (its configuration with most answers graded ok) or
 * the busiest. Answers, not grade rows: grades are versioned, so one answer may have several (docs/grades.md).
 * Imported scores (provider `imported`: another tool's scorer, completeness only) are never the default —
 * a report of F1 over them would be all dashes; name one (`?judge=inspect:…`) to see it.
 */
export function chooseJudge(database: Database, slug?: string): Promise<JudgeRef | null> {
  // Every report of a data version asks: one read per version of the tables the choice depends on.
  return cachedPart(database, reportKey('judge', slug ?? null), () => readJudge(database, slug), ['judges', 'grades']);
}

async function readJudge(database: Database, slug?: string): Promise<JudgeRef | null> {
  const r = await database.execute(
    `select j.id, j.slug, j.provider, j.model, count(distinct g.answer_id)::int as n from judges j left join grades g on g.judge_id = j.id and g.status = 'ok'
      where ($1::text is null or j.slug = $1) and ($1::text is not null or j.provider <> 'imported')
      group by j.id, j.slug, j.provider, j.model order by n desc, j.id desc limit 1`,
    [slug ?? null],
  );
  const row = r.rows[0] as { id: number; slug: string; provider: string; model: string | null } | undefined;
  if (!row && slug) throw notFound(`judge '${slug}' not found`);
  return row ? { id: Number(row.id), slug: row.slug, provider: String(row.provider), model: row.model ?? null } : null;
}

/*
 * Rows are read as facts (report-facts.ts: the answers, a judge's grades, the scores, each kept per version
 * of its own tables) and joined on the report thread (report-rows.ts). These give the joined rows here, as
 * a JSON array of row objects (a task takes that text as well).
 */

/** The description rows as JSON text (parse with JSON.parse). */
export async function descriptionRowsText(database: Database, f: ReportFilters, judge: JudgeRef | null): Promise<string> {
  return JSON.stringify(await descriptionRows(database, f, judge));
}

/** The assembly rows as JSON text (parse with JSON.parse). */
export async function assemblyRowsText(database: Database, f: ReportFilters): Promise<string> {
  return JSON.stringify(await assemblyRows(database, f));
}

/** Fresh row objects for the caller (the report thread's decoded rows are shared between its tasks, these are not). */
export async function descriptionRows(database: Database, f: ReportFilters, judge: JudgeRef | null): Promise<DescriptionRow[]> {
  const facts = await descriptionFacts(database, f, judge);
  return descriptionRowsOf(facts.answers.text, facts.figures.text);
}

export async function assemblyRows(database: Database, f: ReportFilters): Promise<AssemblyRow[]> {
  const facts = await assemblyFacts(database, f);
  return assemblyRowsOf(facts.answers.text, facts.figures.text);
}

/** The filters that change a report, for its cache key (whatever else the caller's object carries). */
export const filterKey = (f: ReportFilters) => ({ run: f.run, model: f.model, rubric: f.rubric, judge: f.judge, unverifiable: reportPolicy(f.unverifiable) });
