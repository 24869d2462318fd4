import type { Database } from '../db/client.ts';
import { notFound } from '../domain/errors.ts';

/**
 * The rows every report is computed from, read in two queries: description answers with the grade of
 * one judge, and assembly answers with their stored score. Reports then aggregate in memory with the
 * pure stats code, so PGlite and PostgreSQL give identical numbers.
 */

export interface ReportFilters {
  run?: string;
  model?: string;
  rubric?: string;
  /** Judge slug; default: the judge with the most ok grades. */
  judge?: string;
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
export async function chooseJudge(database: Database, slug?: string): Promise<JudgeRef | null> {
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

const FILTER_SQL = `($1::text is null or r.name = $1) and ($2::text is null or r.model = $2)`;

/*
 * The row queries return their rows as JSON arrays (json_agg): on PGlite, decoding thousands of rows
 * field by field costs several times the query itself, and a string also crosses to the report thread
 * (src/threads) by a plain copy. JSON carries float8 in its shortest exact form, so every number is the
 * same double the drivers would return. The rows come in chunks of CHUNK answers (keyset on the answer
 * id): embedded PGlite runs a query on the event loop, and a chunk keeps each such pause short.
 */
const CHUNK = 5000;

async function jsonRows(database: Database, sql: string, params: unknown[]): Promise<string> {
  const chunks: string[] = [];
  const after = `$${params.length + 1}`;
  for (let last = -1; ; ) {
    const r = await database.execute(
      `select coalesce(json_agg(x order by x."answerId"), '[]')::text as rows, max(x."answerId") as last, count(*)::int as n
         from (${sql} and a.id > ${after}::int order by a.id limit ${CHUNK}) x`,
      [...params, last],
    );
    const row = r.rows[0] as { rows: string; last: number | null; n: number };
    if (Number(row.n) > 0) chunks.push(String(row.rows).slice(1, -1));
    if (Number(row.n) < CHUNK) break;
    last = Number(row.last);
  }
  return `[${chunks.join(',')}]`;
}

/** descriptionRows as JSON text (parse with JSON.parse). */
export function descriptionRowsText(database: Database, f: ReportFilters, judge: JudgeRef | null): Promise<string> {
  return jsonRows(
    database,
    `select a.id as "answerId", a.external_id as "externalId", r.name as run, r.model, r.effort, r.tags,
            a.status as "answerStatus", a.output_tokens as "outputTokens", a.puzzle_id as "puzzleId", a.rubric_id as "rubricId",
            coalesce(p.size_bucket, (select p2.size_bucket from puzzles p2 where p2.rubric_id = a.rubric_id order by p2.id limit 1)) as "sizeBucket",
            g.status as "gradeStatus", case when g.status = 'ok' then g.f1 end as f1,
            rv.truth->>'orientation' as "truthOrientation",
            g.meta->'orientation'->>'stated' as "statedOrientation",
            (g.meta->'orientation'->>'correct')::boolean as "orientationCorrect",
            (g.meta->'pieceCount'->>'error')::float8 as "pieceCountError"
       from answers a
       join runs r on r.id = a.run_id
       left join puzzles p on p.id = a.puzzle_id
       left join rubrics rb on rb.id = a.rubric_id
       left join lateral (
         -- The newest grade of the answer by the judge (grades are versioned: an answer graded against two
         -- rubric versions has two rows, and a plain join would count it twice).
         select g.status, g.f1, g.meta, g.rubric_version_id from grades g
          where g.answer_id = a.id and g.judge_id = $4 order by g.created_at desc, g.id desc limit 1) g on true
       left join rubric_versions rv on rv.id = g.rubric_version_id
      where a.task in ('describe', 'describe-then-solve') and ${FILTER_SQL} and ($3::text is null or rb.slug = $3)`,
    [f.run ?? null, f.model ?? null, f.rubric ?? null, judge?.id ?? -1],
  );
}

/** assemblyRows as JSON text (parse with JSON.parse). */
export function assemblyRowsText(database: Database, f: ReportFilters): Promise<string> {
  return jsonRows(
    database,
    `select a.id as "answerId", a.external_id as "externalId", r.name as run, r.model, r.effort, r.tags,
            a.status as "answerStatus", a.output_tokens as "outputTokens",
            p.id as "puzzleId", p.slug as puzzle, p.rubric_id as "puzzleRubricId", p.rows, p.cols, p.size_bucket as "sizeBucket",
            s.status as "scoreStatus", s.direct, s.neighbour, s.adjacency, s.proximity, s.exact_match as "exactMatch"
       from answers a
       join runs r on r.id = a.run_id
       join puzzles p on p.id = a.puzzle_id
       left join rubrics rb on rb.id = p.rubric_id
       left join assembly_scores s on s.answer_id = a.id
      where a.task in ('assemble', 'describe-then-solve') and ${FILTER_SQL} and ($3::text is null or rb.slug = $3)`,
    [f.run ?? null, f.model ?? null, f.rubric ?? null],
  );
}

export async function descriptionRows(database: Database, f: ReportFilters, judge: JudgeRef | null): Promise<DescriptionRow[]> {
  return JSON.parse(await descriptionRowsText(database, f, judge)) as DescriptionRow[];
}

export async function assemblyRows(database: Database, f: ReportFilters): Promise<AssemblyRow[]> {
  return JSON.parse(await assemblyRowsText(database, f)) as AssemblyRow[];
}

/** The filters that change a report, for its cache key (whatever else the caller's object carries). */
export const filterKey = (f: ReportFilters) => ({ run: f.run, model: f.model, rubric: f.rubric, judge: f.judge });
