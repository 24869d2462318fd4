import type { Database } from '../db/client.ts';
import { badInput } from '../domain/errors.ts';
import { buildUnits, compareJudges, type HumanItemLabel, type JudgeComparison, type JudgeGrade } from '../analysis/judge-compare/index.ts';
import { calibrationLabelSet } from './grading/calibration-labels.ts';
import { keptJudgeItems, versionNotes } from './grading/label-versions.ts';
import { isFinalGrade, isGraded, sqlText } from './grading/needs-grading.ts';
import { isNewestBySlug } from './grading/newest-grade.ts';
import { findRun } from './grading/run-ref.ts';
import { exampleAnswers } from './grading/example-exclusion.ts';
import { policyF1Sql, policyInfo, REPORT_UNVERIFIABLE_DEFAULT } from './report-policy.ts';
import { isErrorAnswer, notOfErrorAnswer } from './report-facts.ts';
import { errorAnswersNote } from './error-answers.ts';

/**
 * `assay judge compare`, the page and the API route: two judges' STORED grades of one run against the
 * run's human labels. Nothing is graded here (`assay judge compare --grade` grades first through
 * judge-compare-grade.ts); a judge without grades of the run is bad input naming the command that grades
 * it, and the report counts, per judge, the answers left out for want of a grade (`ungraded`).
 */

export interface JudgeCompareQuery {
  run: string;
  a: string;
  b: string;
  top?: number;
  seed?: number;
  resamples?: number;
}

export const JUDGE_COMPARE_DEFAULTS = { top: 10, seed: 1, resamples: 1000 } as const;
/** Upper bounds on what one request may ask for (a bootstrap is O(resamples × units)). */
export const JUDGE_COMPARE_LIMITS = { top: 1000, resamples: 100_000 } as const;

/**
 * The grade (any status) of each answer of the run by each judge, keyed by the answers' ids in the run:
 * the newest (grades are versioned — several configurations of one judge id, several rubric versions —
 * and the newest is the grade, the one the answer page shows first). None of an error answer (error-answers.ts).
 * The policy note does not count a grade of an answer either judge was shown (`shown`): that answer is out
 * of the comparison under any policy (judgeCompare drops it), so no grade the policy left out.
 */
async function runGrades(database: Database, runId: number, slugs: string[], shown: ReadonlySet<string>): Promise<{ grades: Map<string, Map<string, JudgeGrade>>; note: string | null }> {
  // F1 under one unverifiable-claims policy, the reports' default (report-policy.ts): a stored F1 is of the
  // policy its grade was made with, so a move between a judge graded under count and one under exclude
  // mixed the two definitions of correctness into the judges' difference. One that cannot be rescored is no F1.
  const policy = REPORT_UNVERIFIABLE_DEFAULT;
  const p = policyF1Sql('g', '$3::text');
  const r = await database.execute(
    `select coalesce(json_agg(json_build_array(j.slug, a.external_id, g.status, g.items, ${p.f1}, ${p.leftOut}) order by a.id), '[]')::text as j
       from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id ${p.joins}
      where a.run_id = $1 and j.slug = any($2::text[]) and ${isNewestBySlug()} ${notOfErrorAnswer('g')}`,
    [runId, slugs, policy],
  );
  const rows = JSON.parse(String(r.rows[0]!.j)) as Array<[string, string, string, JudgeGrade['items'], number | null, boolean]>;
  const out = new Map(slugs.map((s) => [s, new Map<string, JudgeGrade>()]));
  const leftOut = new Map<string, number>();
  for (const [slug, answer, status, items, f1, left] of rows) {
    out.get(slug)!.set(answer, { status, items, f1 });
    if (left && !shown.has(answer)) leftOut.set(slug, (leftOut.get(slug) ?? 0) + 1);
  }
  const parts = slugs.flatMap((s) => (leftOut.get(s) ? [`judge ${s}: ${policyInfo(policy, leftOut.get(s)!).unverifiableNote}`] : []));
  const note = parts.length ? `F1 moves read every grade with unverifiable claims counted in correctness (the reports' default); ${parts.join('; ')}` : null;
  return { grades: out, note };
}

/** Per judge: the run's answers a judge grades (needs-grading.ts) whose grade is missing or not final. */
export interface UngradedCounts {
  a: number;
  b: number;
}

// The rule's SQL rendered once: "answers" and "grades" unaliased in this statement, as the rule is written.
const UNGRADED = `select s.slug, count(*)::int as n from answers cross join unnest($2::text[]) as s(slug)
   where "answers"."run_id" = $1 and ${sqlText(isGraded)}
     and not exists (select 1 from grades join judges j on j.id = grades.judge_id
       where grades.answer_id = "answers"."id" and j.slug = s.slug and ${sqlText(isFinalGrade)} and ${isNewestBySlug('grades', 'j')})
   group by s.slug`;

/**
 * The run's error answers holding a grade of either judge or a person's label: they compare nothing
 * (error-answers.ts), so their labels are left out beside their grades (runGrades), and the notes count them.
 */
async function errorAnswers(database: Database, runId: number, slugs: string[]): Promise<Set<string>> {
  const r = await database.execute(
    `select a.external_id from answers a where a.run_id = $1 and ${isErrorAnswer('a.id')}
        and (exists (select 1 from grades g join judges j on j.id = g.judge_id where g.answer_id = a.id and j.slug = any($2::text[]))
             or exists (select 1 from labels l where l.answer_id = a.id and l.kind = 'human'))`,
    [runId, slugs],
  );
  return new Set(r.rows.map((x) => String(x.external_id)));
}

async function ungradedCounts(database: Database, runId: number, a: string, b: string): Promise<UngradedCounts> {
  const r = await database.execute(UNGRADED, [runId, [a, b]]);
  const n = new Map(r.rows.map((x) => [String(x.slug), Number(x.n)]));
  return { a: n.get(a) ?? 0, b: n.get(b) ?? 0 };
}

/** Checks and fills in the query's options: bad input before anything is read or graded. */
export function checkQuery(q: JudgeCompareQuery): Required<JudgeCompareQuery> {
  if (q.a === q.b) throw badInput(`give two different judges (both are '${q.a}')`);
  const top = q.top ?? JUDGE_COMPARE_DEFAULTS.top;
  const resamples = q.resamples ?? JUDGE_COMPARE_DEFAULTS.resamples;
  const seed = q.seed ?? JUDGE_COMPARE_DEFAULTS.seed;
  if (!Number.isInteger(top) || top < 0 || top > JUDGE_COMPARE_LIMITS.top) throw badInput(`top must be a whole number from 0 to ${JUDGE_COMPARE_LIMITS.top}, got ${top}`);
  if (!Number.isInteger(resamples) || resamples < 1 || resamples > JUDGE_COMPARE_LIMITS.resamples) {
    throw badInput(`resamples must be a whole number from 1 to ${JUDGE_COMPARE_LIMITS.resamples}, got ${resamples}`);
  }
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) throw badInput(`seed must be a whole number from 0 to 4294967295, got ${seed}`);
  return { ...q, top, resamples, seed };
}

export type JudgeCompareReport = JudgeComparison & {
  run: string;
  /** Answers of the run each judge grades but has no final grade of (left out of the comparison). */
  ungraded: UngradedCounts;
  /** Answers of the run either judge was shown as examples (anchored judges): left out of the comparison. */
  excludedExamples: number;
  /** What was left out or kept unchecked for its rubric version (label-versions.ts), as the calibration report says it. */
  notes: string[];
};

export async function judgeCompare(database: Database, query: JudgeCompareQuery): Promise<JudgeCompareReport> {
  const q = checkQuery(query);
  const run = await findRun(database, q.run);
  // An answer either judge was shown as an example tests neither (example-exclusion.ts): it is left out,
  // read first so the policy note does not count its grades.
  const shown = new Set([...(await exampleAnswers(database, { key: 'externalId', run: run.name, judges: [q.a, q.b] })).values()].flatMap((s) => [...s]));
  const { grades, note: policyNote } = await runGrades(database, run.id, [q.a, q.b], shown);
  for (const judge of [q.a, q.b]) {
    if (grades.get(judge)!.size === 0) {
      throw badInput(`judge '${judge}' has no grades for run '${run.name}'; grade it first: assay run --run ${run.name} --judge ${judge}`);
    }
  }
  for (const g of grades.values()) for (const answer of shown) g.delete(answer);
  // The calibration's own label rows, settled with both judges' grades: a label and a verdict of an item
  // are compared only where both were given against the same wording of it (label-versions.ts).
  const set = await calibrationLabelSet(database, { key: 'externalId', run: run.name, judges: [q.a, q.b], scale: 'verdict', humanLabelledOnly: true });
  const failed = await errorAnswers(database, run.id, [q.a, q.b]);
  const humans: HumanItemLabel[] = set.rows.flatMap((l) =>
    l.kind === 'human' && l.item !== undefined && !shown.has(l.answer) && !failed.has(l.answer) ? [{ answer: l.answer, rubric: l.rubric ?? null, item: l.item, rater: l.rater, label: String(l.label) }] : [],
  );
  // A judge's verdict of an item left out for its version is no verdict of the unit (counted in the notes).
  const kept = keptJudgeItems(set.rows);
  const labelled = new Set(humans.map((h) => h.answer));
  for (const [slug, byAnswer] of grades) {
    for (const [answer, g] of byAnswer) {
      if (labelled.has(answer) && g.items) byAnswer.set(answer, { ...g, items: g.items.filter((it) => kept(slug, answer, it.id)) });
    }
  }
  const units = buildUnits(humans, grades.get(q.a)!, grades.get(q.b)!);
  const report = compareJudges(
    { a: q.a, b: q.b },
    units,
    { a: grades.get(q.a)!, b: grades.get(q.b)!, humanLabelledAnswers: labelled },
    { seed: q.seed, resamples: q.resamples, top: q.top },
  );
  return { run: run.name, ...report, ungraded: await ungradedCounts(database, run.id, q.a, q.b), excludedExamples: shown.size, notes: [...versionNotes(set.versions), ...(policyNote ? [policyNote] : []), ...errorAnswersNote(failed.size)] };
}
