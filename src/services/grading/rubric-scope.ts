/**
 * SQL for a report's rubric filter over answers (alias `a`, the slug in parameter `$n`, null for no
 * filter): an answer's rubric is its own, else its puzzle's (an assembly's), as report-facts.ts scopes
 * the reports. One text for the calibration rows and the example answers, so both count the same answers.
 */
export const inRubricSql = (a: string, n: number): string =>
  `($${n}::text is null or exists (select 1 from rubrics rb where rb.slug = $${n} and rb.id = ${answerRubricIdSql(a)}))`;

/** SQL for the rubric id of an answer (alias `a`) as the reports scope it: its own, else its puzzle's. */
export const answerRubricIdSql = (a: string): string => `coalesce(${a}.rubric_id, (select p.rubric_id from puzzles p where p.id = ${a}.puzzle_id))`;
