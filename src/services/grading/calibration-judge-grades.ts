import type { Database } from '../../db/client.ts';
import { SCALES, type LabelScale } from '../../domain/labels.ts';
import type { UnverifiablePolicy } from '../../scoring/description/score.ts';
import { policyF1Sql } from '../report-policy.ts';
import { notOfErrorAnswer } from '../report-facts.ts';
import { isNewestBySlug } from './newest-grade.ts';
import { inRubricSql } from './rubric-scope.ts';
import type { VersionedRow } from './label-versions.ts';
import type { ExampleAnswers } from './example-exclusion.ts';

/**
 * The judges' side of the calibration rows (calibration-labels.ts calibrationLabelSet): each judge's newest
 * ok grade of an answer, as judge labels on the report's scale. On the numeric scale the label is the F1
 * under the report's one unverifiable-claims policy (report-policy.ts), as every report of F1 reads it: a
 * grade's stored F1 is of the policy it was graded with, so two judges graded under count and exclude were
 * compared on two definitions of correctness. A grade its claims cannot rescore (a panel grade) is a label
 * only under its own policy, and is left out, and counted, under the other. No grade of an error answer is
 * a label (error-answers.ts; calibration-labels.ts counts them).
 */

/** The run and model filters ($1, $2) over runs `r`, shared with the stored labels' query. */
export const FILTERS = `($1::text is null or r.name = $1) and ($2::text is null or r.model = $2)`;
/** With a campaign ($3), only its answers. */
export const IN_CAMPAIGN = (a: string) => `($3::int is null or exists (select 1 from campaign_answers ca where ca.campaign_id = $3 and ca.answer_id = ${a}.id))`;

type GradeFigures = { items: Array<{ id: string; verdict: string }> | null; label: string | null; f1: number | null };

/** A grade's figures as judge labels on the scale (or verdicts and label without one). */
function judgeLabels(scale: LabelScale | undefined, g: GradeFigures): Array<{ item?: string; label: string | number }> {
  const verdicts = () => (g.items ?? []).map((it) => ({ item: it.id, label: it.verdict }));
  if (scale === undefined) return [...(g.label !== null ? [{ label: g.label }] : []), ...verdicts()];
  if (scale === 'verdict') return verdicts();
  if (scale === 'binary') return g.label !== null && SCALES.binary.normalise(g.label) !== null ? [{ label: g.label }] : [];
  return g.f1 !== null ? [{ label: g.f1 }] : [];
}

export interface JudgeGradeQuery {
  run: string | null;
  model: string | null;
  campaign: number | null;
  rubric: string | null;
  /** Slugs, or every judge's. */
  judges: string[] | null;
  humanLabelledOnly: boolean;
  scale: LabelScale | undefined;
  policy: UnverifiablePolicy;
}

/**
 * The judge rows; `answerKey` is the SQL naming an answer (a.external_id or a.id::text), `keep` the answers
 * whose grades are units (null: all). `leftOut`: of those, the numeric-scale grades the policy cannot read,
 * but not a judge's grade of its own example answer (`shown`): that is out of its figures under any policy.
 */
export async function judgeGradeRows(
  database: Database,
  q: JudgeGradeQuery,
  answerKey: string,
  keep: ReadonlySet<string> | null,
  shown: ExampleAnswers = new Map(),
): Promise<{ rows: VersionedRow[]; leftOut: number }> {
  // Only the numeric scale reads F1: the other scales skip the claims' lateral joins.
  const p = q.scale === 'numeric' ? policyF1Sql('g', '$7::text') : { joins: '', f1: 'null::float8', leftOut: 'false' };
  const sql = `select coalesce(json_agg(json_build_array(${answerKey}, g.items, g.meta->>'label', ${p.f1}, j.slug, r.model, a.id, g.rubric_version_id, ${p.leftOut}) order by a.id, j.slug), '[]')::text as j
       from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id join runs r on r.id = a.run_id ${p.joins}
      where g.status = 'ok' and ${FILTERS} and ${IN_CAMPAIGN('a')} and ${inRubricSql('a', 6)} and ($4::text[] is null or j.slug = any($4::text[]))
        and ${isNewestBySlug()} ${notOfErrorAnswer('g')}
        and (not $5::boolean or exists (select 1 from labels l where l.answer_id = g.answer_id and l.kind = 'human'))`;
  // The policy ($7) is a parameter only where the F1 names it.
  const params = [q.run, q.model, q.campaign, q.judges, q.humanLabelledOnly, q.rubric, ...(q.scale === 'numeric' ? [q.policy] : [])];
  const grades = JSON.parse(String((await database.execute(sql, params)).rows[0]!.j)) as Array<
    [string, GradeFigures['items'], string | null, number | null, string, string, number, number | null, boolean]
  >;
  const rows: VersionedRow[] = [];
  let leftOut = 0;
  for (const [answer, items, label, f1, judge, model, answerId, versionId, left] of grades) {
    if (keep && !keep.has(answer)) continue;
    if (left && !shown.get(judge)?.has(answer)) leftOut += 1;
    for (const l of judgeLabels(q.scale, { items, label, f1 })) rows.push({ row: { answer, model, rater: judge, kind: 'judge', ...l }, answerId, versionId });
  }
  return { rows, leftOut };
}
