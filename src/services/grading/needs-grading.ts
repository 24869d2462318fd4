import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Queryable } from '../../db/client.ts';
import { answers, grades, rubricVersions } from '../../db/schema.ts';
import { NO_QUORUM_STATUS } from '../../domain/panel.ts';

/**
 * What needs grading — the one rule, used by every path that picks answers for a judge (`assay run`
 * and POST /api/runs/{id}/grade through the queue, the queue's job itself, `--batch`, the seed) and by
 * progress (what counts towards total and done).
 *
 * An answer is graded by a judge when its task has a rubric to be judged against (`describe`, and the
 * description half of `describe-then-solve`), its call did not end in error, it has text, and it names a
 * rubric. An `error` answer may keep text (Inspect keeps the last output of a sample that errored
 * mid-agent, promptfoo the output of a provider that failed after answering): that is not the model's
 * answer, and graded it entered the leaderboard as one. A `truncated` answer is graded: its text is the
 * model's own output, cut off, and a cut description is a worse one. It still needs a
 * grade from a judge until that judge (its judges row: this configuration) gave it a final grade against
 * the latest version of its rubric — grades are versioned (docs/grades.md), so after the rubric is edited
 * the answer needs grading again and the earlier grade stays stored. Final is any status but `provider_error` (a
 * provider failure is asked again; a refusal or a parse failure is the judge's answer). A panel's
 * `no_quorum` is final too, except when every sample that abstained was a provider_error
 * (meta.panel.retryable): then it is a provider failure like any other, asked again — and the samples
 * that did answer are read back from the response cache, so a retry pays only for the failed calls.
 *
 * The rule is SQL over the `answers` table (drizzle renders its columns qualified, "answers"."task"),
 * so a query that uses it selects from `answers` without an alias.
 */

/** Tasks whose answers a judge grades against a rubric; assemblies and multiple choice are scored, not judged. */
export const GRADED_TASKS = ['describe', 'describe-then-solve'] as const;

/** Why an answer is not graded by any judge, in the order the reasons are tried. */
export const SKIP_REASONS = ['task', 'answerError', 'noText', 'noRubric'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];
/** Answers of a run left out of grading, by reason (each answer counted once, under the first reason that applies). */
export type SkippedCounts = Record<SkipReason, number>;

const gradedTasks = sql.raw(GRADED_TASKS.map((t) => `'${t}'`).join(', '));

/**
 * The reason an answer is not graded ('task': a task no judge grades; 'answerError': the model's call
 * ended in error (status error), with or without text; 'noText': no or blank text; 'noRubric': a graded
 * task that names no rubric), or null when it is graded. In that order: an assembly without text counts
 * under 'task', an error answer without text under 'answerError'.
 */
export const skipReason: SQL<SkipReason | null> = sql<SkipReason | null>`(case
  when ${answers.task} not in (${gradedTasks}) then 'task'
  when ${answers.status} = 'error' then 'answerError'
  when coalesce(btrim(${answers.text}), '') = '' then 'noText'
  when ${answers.rubricId} is null then 'noRubric' end)`;

/** The answer is one a judge grades. */
export const isGraded: SQL<boolean> = sql<boolean>`(${skipReason} is null)`;

/**
 * The `grades` row in scope (drizzle renders it "grades"."status") is final: any status but
 * provider_error, and not a no_quorum whose abstentions were all provider errors (meta.panel.retryable).
 */
export const isFinalGrade: SQL<boolean> = sql<boolean>`(${grades.status} <> 'provider_error'
    and not (${grades.status} = ${sql.raw(`'${NO_QUORUM_STATUS}'`)} and coalesce(${grades.meta}->'panel'->>'retryable', 'false') = 'true'))`;

/** The id of the latest version of the answer's rubric (null when it names none). */
const latestVersion = sql`(select ${rubricVersions.id} from ${rubricVersions} where ${rubricVersions.rubricId} = ${answers.rubricId} order by ${rubricVersions.version} desc limit 1)`;

/**
 * The answer has a final grade from the judge against its rubric's latest version (there is at most one
 * such grade: the key of grades). `judgeId` is a judges row id, or an SQL expression (a
 * placeholder of a statement written as text, e.g. sql.raw('$2::int')); `writtenAfter`: only a grade
 * written after that time (progress's rate).
 */
export const hasFinalGrade = (judgeId: number | SQL, o: { writtenAfter?: SQL } = {}): SQL<boolean> =>
  sql<boolean>`exists (select 1 from ${grades} where ${grades.answerId} = ${answers.id} and ${grades.judgeId} = ${judgeId}
    and ${grades.rubricVersionId} = ${latestVersion} and ${isFinalGrade}${o.writtenAfter ? sql` and ${grades.createdAt} > ${o.writtenAfter}` : sql``})`;

/** The answer still needs a grade from the judge. */
export const needsGrading = (judgeId: number | SQL): SQL<boolean> => sql<boolean>`(${isGraded} and not ${hasFinalGrade(judgeId)})`;

const dialect = new PgDialect();
/**
 * A fragment without parameters as SQL text, for the hot statements written as text (prepared once,
 * run per batch of jobs). Refuses a fragment that would bring its own numbered parameters.
 */
export function sqlText(fragment: SQL): string {
  const q = dialect.sqlToQuery(fragment);
  if (q.params.length) throw new Error('sqlText: the fragment has parameters; pass placeholders of the statement as sql.raw');
  return q.sql;
}

export interface RunSelection {
  /** Answers of the run a judge grades. */
  total: number;
  /** Answers left out, by reason. */
  skipped: SkippedCounts;
}

/** How many answers of the run are graded, and how many are left out and why. */
export async function runSelection(db: Queryable, runId: number): Promise<RunSelection> {
  const rows = await db
    .select({ reason: skipReason, n: sql<number>`count(*)::int` })
    .from(answers)
    .where(eq(answers.runId, runId))
    .groupBy(skipReason);
  const skipped = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as SkippedCounts;
  let total = 0;
  for (const r of rows) {
    if (r.reason === null) total += Number(r.n);
    else skipped[r.reason] += Number(r.n);
  }
  return { total, skipped };
}

/** Ids of the run's answers that still need a grade from the judge, in id order. */
export async function answersNeedingGrade(db: Queryable, runId: number, judgeId: number): Promise<number[]> {
  const rows = await db
    .select({ id: answers.id })
    .from(answers)
    .where(and(eq(answers.runId, runId), needsGrading(judgeId)))
    .orderBy(asc(answers.id));
  return rows.map((r) => r.id);
}
