import type { Database } from '../db/client.ts';
import { cachedPart, reportKey } from './report-cache.ts';
import type { ReportTable } from './report-inputs.ts';
import type { JudgeRef, ReportFilters } from './report-data.ts';
import { policyF1Sql, policyInfo, reportPolicy, type PolicyInfo } from './report-policy.ts';
import { ASSEMBLY_ANSWER_COLUMNS, DESCRIPTION_ANSWER_COLUMNS, GRADE_COLUMNS, SCORE_COLUMNS, type FactsText, type RowsInput } from './report-rows.ts';

/**
 * The facts every report is computed from (report-rows.ts joins them into rows), each read on its own
 * and kept per version of the tables it reads (report-cache.ts cachedPart): the answers in scope (answers,
 * runs, puzzles, rubrics), a judge's newest grade of each answer (grades, rubric versions), the stored
 * assembly scores. A regrade re-reads only the grades; a new score only the scores.
 *
 * Columns, not objects: each chunk is one JSON object of arrays (json_agg per column). JSON carries
 * float8 in its shortest exact form, so every number is the double the drivers would return. The rows
 * come in chunks of CHUNK (keyset on the answer id): embedded PGlite runs a query on the event loop, and
 * a chunk keeps each such pause short.
 */

const CHUNK = 5000;

const ANSWER_TABLES = ['answers', 'runs', 'puzzles', 'rubrics'] as const satisfies readonly ReportTable[];
/** A report scope (filters) is a set of answers, so the grades and scores in it depend on the answer tables too. */
const GRADE_TABLES = [...ANSWER_TABLES, 'grades', 'rubric_versions'] as const satisfies readonly ReportTable[];
const SCORE_TABLES = [...ANSWER_TABLES, 'assembly_scores'] as const satisfies readonly ReportTable[];
/** The tables the description rows (descriptionFacts) and the assembly rows (assemblyFacts) are read from. */
export const DESCRIPTION_TABLES = GRADE_TABLES;
export const ASSEMBLY_TABLES = SCORE_TABLES;

const FILTER_SQL = `($1::text is null or r.name = $1) and ($2::text is null or r.model = $2) and ($3::text is null or rb.slug = $3)`;
const filterParams = (f: ReportFilters) => [f.run ?? null, f.model ?? null, f.rubric ?? null];
const scoped = (f: ReportFilters) => f.run !== undefined || f.model !== undefined || f.rubric !== undefined;

let serial = 0;

/**
 * `sql` as columnar JSON chunks. `sql` selects the columns `names` (the first "answerId") in chunks: it
 * takes `params` and, after them, the last answer id of the previous chunk, and returns the next CHUNK.
 */
async function factsText(database: Database, sql: string, names: readonly string[], params: unknown[], o: { ordered: boolean }): Promise<FactsText> {
  const chunks: string[] = [];
  // Every column is aggregated in the same pass, so a row's values sit at the same index in each. Rows
  // are in answer order where the order is the rows' order (answers); figures are looked up by answer id,
  // so theirs need no sort (one sort per column otherwise).
  const order = o.ordered ? ` order by x."answerId"` : '';
  const agg = names.map((n) => `'${n}', coalesce(json_agg(x."${n}"${order}), '[]')`).join(', ');
  for (let last = -1; ; ) {
    const r = await database.execute(`select json_build_object(${agg})::text as t, max(x."answerId") as last, count(*)::int as n from (${sql}) x`, [...params, last]);
    const row = r.rows[0] as { t: string; last: number | null; n: number };
    if (Number(row.n) > 0) chunks.push(String(row.t));
    if (Number(row.n) < CHUNK) break;
    last = Number(row.last);
  }
  return { id: `${++serial}`, text: `[${chunks.join(',')}]` };
}

const DESCRIPTION_ANSWERS = `select a.id as "answerId", a.external_id as "externalId", r.name as run, r.model, r.effort, r.tags,
        a.status as "answerStatus", a.output_tokens as "outputTokens", a.puzzle_id as "puzzleId", a.rubric_id as "rubricId",
        coalesce(p.size_bucket, (select p2.size_bucket from puzzles p2 where p2.rubric_id = a.rubric_id order by p2.id limit 1)) as "sizeBucket"
   from answers a
   join runs r on r.id = a.run_id
   left join puzzles p on p.id = a.puzzle_id
   left join rubrics rb on rb.id = a.rubric_id
  where a.task in ('describe', 'describe-then-solve') and ${FILTER_SQL} and a.id > $4::int
  order by a.id limit ${CHUNK}`;

const ASSEMBLY_ANSWERS = `select a.id as "answerId", a.external_id as "externalId", r.name as run, r.model, r.effort, r.tags,
        a.status as "answerStatus", a.output_tokens as "outputTokens",
        p.id as "puzzleId", p.slug as puzzle, p.rubric_id as "puzzleRubricId", p.rows, p.cols, p.size_bucket as "sizeBucket"
   from answers a
   join runs r on r.id = a.run_id
   join puzzles p on p.id = a.puzzle_id
   left join rubrics rb on rb.id = p.rubric_id
  where a.task in ('assemble', 'describe-then-solve') and ${FILTER_SQL} and a.id > $4::int
  order by a.id limit ${CHUNK}`;

/** The description answers in scope (no grade: a regrade leaves this standing). */
export function descriptionAnswers(database: Database, f: ReportFilters): Promise<FactsText> {
  return cachedPart(database, reportKey('facts:description-answers', filterParams(f)), () => factsText(database, DESCRIPTION_ANSWERS, DESCRIPTION_ANSWER_COLUMNS, filterParams(f), { ordered: true }), ANSWER_TABLES);
}

/** The assembly answers in scope (no score). */
export function assemblyAnswers(database: Database, f: ReportFilters): Promise<FactsText> {
  return cachedPart(database, reportKey('facts:assembly-answers', filterParams(f)), () => factsText(database, ASSEMBLY_ANSWERS, ASSEMBLY_ANSWER_COLUMNS, filterParams(f), { ordered: true }), ANSWER_TABLES);
}

/** Restricts a figure query to the description (or assembly) answers of a scope; nothing without filters (the join only reads what is in scope). */
const inScope = (f: ReportFilters, tasks: string, rubricOf: string) =>
  scoped(f)
    ? `and answer_id in (select a.id from answers a join runs r on r.id = a.run_id left join puzzles p on p.id = a.puzzle_id left join rubrics rb on rb.id = ${rubricOf}
                          where a.task in (${tasks}) and ${FILTER_SQL})`
    : `and ($1::text is null) and ($2::text is null) and ($3::text is null)`;

/**
 * Answers stored with status error: the model call failed, so there is no answer to grade or score (a
 * failure is a status, never a score). Grading skips them (grading/needs-grading.ts, reason answerError),
 * but grades stored before it did, and the score an import gives their leftover text (0 for none), are
 * still in the tables: every report reads such an answer as ungraded and unscored, and the leaderboard
 * counts it in `errors` from the answer facts (answerStatus).
 */
export const isErrorAnswer = (answerId: string) => `exists (select 1 from answers ea where ea.id = ${answerId} and ea.status = 'error')`;
/** Keeps the rows of `table` (answer_id) not of an error answer: every reader of grades, scores or labels of answers uses it. */
export const notOfErrorAnswer = (table: string) => `and not ${isErrorAnswer(`${table}.answer_id`)}`;

/**
 * Of each answer the judge graded, the newest grade (grades are versioned: an answer graded against two
 * rubric versions has two rows) as the report reads it: F1 only of an ok grade, under the report's
 * unverifiable-claims policy (report-policy.ts), the orientation and piece count of its meta, the
 * orientation of the rubric version it was judged against. None of an error answer (notOfErrorAnswer).
 */
const newestGrades = (f: ReportFilters, judgeParam: string, lastParam: string | null) => `select distinct on (answer_id) answer_id, status, completeness, correctness, f1, claims, meta, rubric_version_id
     from grades
    where judge_id = ${judgeParam} ${inScope(f, `'describe', 'describe-then-solve'`, 'a.rubric_id')} ${notOfErrorAnswer('grades')}
      ${lastParam ? `and answer_id > ${lastParam}::int` : ''}
    order by answer_id, created_at desc, id desc${lastParam ? ` limit ${CHUNK}` : ''}`;

export function judgeGrades(database: Database, f: ReportFilters, judge: JudgeRef | null): Promise<FactsText> {
  const policy = reportPolicy(f.unverifiable);
  const p = policyF1Sql('g', '$5::text');
  // Figures picked inside the distinct on (one pass over the judge's grades), the policy's F1 and the rubric version's orientation after.
  const sql = `select g.answer_id as "answerId", g.status as "gradeStatus", ${p.f1} as f1, rv.truth->>'orientation' as "truthOrientation",
                      g.meta->'orientation'->>'stated' as "statedOrientation", (g.meta->'orientation'->>'correct')::boolean as "orientationCorrect",
                      (g.meta->'pieceCount'->>'error')::float8 as "pieceCountError"
     from (${newestGrades(f, '$4', '$6')}) g ${p.joins}
     left join rubric_versions rv on rv.id = g.rubric_version_id`;
  return cachedPart(
    database,
    reportKey('facts:grades', [...filterParams(f), judge?.id ?? null, policy]),
    () => factsText(database, sql, ['answerId', ...GRADE_COLUMNS], [...filterParams(f), judge?.id ?? -1, policy], { ordered: false }),
    GRADE_TABLES,
  );
}

/** Of the judge's newest grades in scope, how many an F1 report under its policy leaves out (report-policy.ts), with the note to show. */
export function policyNote(database: Database, f: ReportFilters, judge: JudgeRef | null): Promise<PolicyInfo> {
  const policy = reportPolicy(f.unverifiable);
  if (!judge) return Promise.resolve(policyInfo(policy, 0));
  const p = policyF1Sql('g', '$5::text');
  const sql = `select count(*) filter (where ${p.leftOut})::int as n from (${newestGrades(f, '$4', null)}) g ${p.joins}`;
  return cachedPart(
    database,
    reportKey('facts:policy-left-out', [...filterParams(f), judge.id, policy]),
    async () => policyInfo(policy, Number((await database.execute(sql, [...filterParams(f), judge.id, policy])).rows[0]!.n)),
    GRADE_TABLES,
  );
}

/** The stored assembly scores (one per answer) of the answers in scope; none of an error answer (notOfErrorAnswer). */
export function assemblyScores(database: Database, f: ReportFilters): Promise<FactsText> {
  const sql = `select s.answer_id as "answerId", s.status as "scoreStatus", s.direct, s.neighbour, s.adjacency, s.proximity, s.exact_match as "exactMatch"
     from (select answer_id from assembly_scores where true ${inScope(f, `'assemble', 'describe-then-solve'`, 'p.rubric_id')} ${notOfErrorAnswer('assembly_scores')}
              and answer_id > $4::int order by answer_id limit ${CHUNK}) ids
     join assembly_scores s on s.answer_id = ids.answer_id`;
  return cachedPart(database, reportKey('facts:scores', filterParams(f)), () => factsText(database, sql, ['answerId', ...SCORE_COLUMNS], filterParams(f), { ordered: false }), SCORE_TABLES);
}

/** The description rows of a scope and judge, as the two facts the report thread joins (report-rows.ts). */
export async function descriptionFacts(database: Database, f: ReportFilters, judge: JudgeRef | null): Promise<Exclude<RowsInput, string>> {
  const [answers, figures] = await Promise.all([descriptionAnswers(database, f), judgeGrades(database, f, judge)]);
  return { answers, figures };
}

/** The assembly rows of a scope, as the two facts the report thread joins. */
export async function assemblyFacts(database: Database, f: ReportFilters): Promise<Exclude<RowsInput, string>> {
  const [answers, figures] = await Promise.all([assemblyAnswers(database, f), assemblyScores(database, f)]);
  return { answers, figures };
}
