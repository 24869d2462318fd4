import type { Database } from '../db/client.ts';
import { getAnswer, type AnswerView } from './answers.ts';
import { getAssemblyScore, type StoredAssemblyScore } from './assemblies.ts';
import { type AnswerGrade, gradesOfAnswer } from './grading/grade-detail.ts';
import { newestFirst } from './grading/newest-grade.ts';
import { getPuzzle, type PuzzleView } from './puzzles.ts';
import { chooseJudge } from './report-data.ts';
import { policyF1Sql, policyInfo, reportPolicy, type PolicyInfo } from './report-policy.ts';
import { notOfErrorAnswer } from './report-facts.ts';
import type { UnverifiablePolicy } from '../scoring/description/score.ts';
import { getRubric, getRubricVersionById, type RubricVersionView } from './rubrics.ts';

/**
 * One answer as the grade detail page shows it: the answer, every judge's grade of it (in the one
 * grade shape, GradeDetail, with the judge's prompt file), the rubric version each grade used, and for
 * assemblies the puzzle and the stored score. An answer stored with status error (the model call failed)
 * has neither grade nor score, as every report reads it (report-facts.ts notOfErrorAnswer): rows stored for
 * one before grading skipped such answers, or imported, are not shown as its figures (the page says why).
 */

export interface AnswerGradeView extends AnswerGrade {
  /** The rubric version the grade used, with its item texts. */
  rubricVersion: RubricVersionView | null;
}

export interface AnswerDetail {
  answer: AnswerView;
  grades: AnswerGradeView[];
  /** The answer's rubric (latest version) even when ungraded. */
  rubric: RubricVersionView | null;
  puzzle: PuzzleView | null;
  assembly: StoredAssemblyScore | null;
}

const orNull = async <T>(p: Promise<T>): Promise<T | null> => {
  try {
    return await p;
  } catch (e) {
    if ((e as { code?: string }).code === 'not_found') return null;
    throw e;
  }
};

const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export async function answerDetail(database: Database, id: number): Promise<AnswerDetail> {
  const answer = await getAnswer(database, id);
  const failed = answer.status === 'error';
  const versions = new Map<number, RubricVersionView | null>();
  const grades: AnswerGradeView[] = [];
  for (const g of failed ? [] : await gradesOfAnswer(database, id)) {
    const vid = g.rubricVersionId;
    if (vid !== null && !versions.has(vid)) versions.set(vid, await orNull(getRubricVersionById(database, vid)));
    grades.push({ ...g, rubricVersion: vid === null ? null : (versions.get(vid) ?? null) });
  }
  const rubric = answer.rubric ? await orNull(getRubric(database, answer.rubric)) : null;
  const puzzle = answer.puzzle ? await orNull(getPuzzle(database, answer.puzzle)) : null;
  const assembly = !failed && (answer.task === 'assemble' || answer.task === 'describe-then-solve') ? await orNull(getAssemblyScore(database, id)) : null;
  return { answer, grades, rubric, puzzle, assembly };
}

/** Answers listed with their scores, for the answers page. */
export interface AnswerListRow {
  id: number;
  answer: string;
  run: string;
  model: string;
  task: string;
  status: string;
  rubric: string | null;
  puzzle: string | null;
  grades: number;
  f1: number | null;
  neighbour: number | null;
  direct: number | null;
  humanLabels: number;
}

export async function listAnswerRows(
  database: Database,
  f: { run?: string; model?: string; task?: string; judge?: string; unverifiable?: UnverifiablePolicy; limit: number; offset: number },
): Promise<{ total: number; judge: string | null; rows: AnswerListRow[] } & PolicyInfo> {
  // F1 is the reports' judge's (report-data.ts chooseJudge: the named one, else the busiest) and read as they read
  // it, the newest grade of that judge and its F1 only when ok: the newest ok grade of any judge made the column
  // the F1 of whichever judge graded last, beside a leaderboard of another judge. Unknown judge: not found.
  // It is under the reports' unverifiable-claims policy too (report-policy.ts, one SQL): the stored F1 is of the
  // policy the grade was made with, so a grade under exclude read beside a leaderboard under count disagreed.
  const judge = await chooseJudge(database, f.judge);
  const policy = reportPolicy(f.unverifiable);
  const where = `($1::text is null or r.name = $1) and ($2::text is null or r.model = $2) and ($3::text is null or a.task = $3)`;
  const params = [f.run ?? null, f.model ?? null, f.task ?? null];
  // The judge's newest grade of each answer (none: nulls, and the policy's F1 of no grade is null); none of an error answer.
  const newest = (judgeParam: string) => `left join lateral (select g.status, g.completeness, g.correctness, g.f1, g.claims, g.meta from grades g
        where g.answer_id = a.id and g.judge_id = ${judgeParam} ${notOfErrorAnswer('g')} order by ${newestFirst()} limit 1) ng on true`;
  const p = policyF1Sql('ng', '$5::text');
  const counted = await database.execute(
    `select count(*)::int as n, count(*) filter (where ${p.leftOut})::int as "leftOut"
       from answers a join runs r on r.id = a.run_id ${newest('$4')} ${p.joins} where ${where}`,
    [...params, judge?.id ?? -1, policy],
  );
  const total = Number(counted.rows[0]?.n ?? 0);
  const q = policyF1Sql('ng', '$7::text');
  const r = await database.execute(
    `select a.id, a.external_id as answer, r.name as run, r.model, a.task, a.status, rb.slug as rubric, p.slug as puzzle,
            (select count(*)::int from grades g where g.answer_id = a.id ${notOfErrorAnswer('g')}) as grades,
            ${q.f1} as f1,
            s.neighbour, s.direct,
            (select count(distinct l.annotator)::int from labels l where l.answer_id = a.id and l.kind = 'human') as "humanLabels"
       from answers a join runs r on r.id = a.run_id
       ${newest('$6')} ${q.joins}
       left join rubrics rb on rb.id = a.rubric_id left join puzzles p on p.id = a.puzzle_id
       left join assembly_scores s on s.answer_id = a.id ${notOfErrorAnswer('s')}
      where ${where} order by a.id limit $4 offset $5`,
    [...params, f.limit, f.offset, judge?.id ?? -1, policy],
  );
  return {
    total,
    judge: judge?.slug ?? null,
    ...policyInfo(policy, Number(counted.rows[0]?.leftOut ?? 0)),
    rows: r.rows.map((x) => ({ ...x, id: Number(x.id), f1: n(x.f1), neighbour: n(x.neighbour), direct: n(x.direct), grades: Number(x.grades), humanLabels: Number(x.humanLabels) })),
  };
}
