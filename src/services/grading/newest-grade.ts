/**
 * Which stored grade is "the grade" of an answer by a judge. Grades are versioned (docs/grades.md): a
 * changed judge configuration or rubric version adds a grade and keeps the earlier ones, so one answer
 * may have several grades by one judge. Every read that shows or counts the grade takes the newest
 * (written last: created_at, then id), so an answer is never counted twice and the earlier grades stay
 * readable on the answer page (gradesOfAnswer lists them all, newest first).
 */

/**
 * SQL condition, for statements written as text: grade `g`, whose judges row is `j`, is the newest grade
 * of its answer by that judge id (slug), over every configuration of it and every rubric version. The
 * reads by judge id (calibration, judge compare) use it; the reports, which read one judges row, take
 * the newest of that row (report-data.ts).
 */
export function isNewestBySlug(g = 'g', j = 'j'): string {
  return `not exists (select 1 from grades g_newer join judges j_newer on j_newer.id = g_newer.judge_id
     where g_newer.answer_id = ${g}.answer_id and j_newer.slug = ${j}.slug and (g_newer.created_at, g_newer.id) > (${g}.created_at, ${g}.id))`;
}

/**
 * ORDER BY terms putting grades `g` newest first by the same rule (created_at, then id), so `limit 1`
 * is the newest even when two grades were written in one transaction (one now(), the same microsecond).
 */
export function newestFirst(g = 'g'): string {
  return `${g}.created_at desc, ${g}.id desc`;
}
