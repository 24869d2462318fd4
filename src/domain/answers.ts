/**
 * The closed value sets of a stored answer. One list each: db/schema.ts builds the column types and
 * check constraints from them, the importers and the API validate against them, the pages offer them.
 */

/** What the model was asked to do: the task decides how an answer is graded or scored. */
export const TASK_KINDS = ['describe', 'assemble', 'describe-then-solve', 'choice'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

/** How the model's call ended for this answer (the importer reads it from the row, or from its stop reason). */
export const ANSWER_STATUSES = ['ok', 'no_answer', 'truncated', 'error'] as const;
export type AnswerStatus = (typeof ANSWER_STATUSES)[number];

/**
 * The model of a run that names none: ad hoc answer text graded without a model (`assay grade` without
 * --model, POST /api/grades without `model`). Reports that rank models leave such answers out (and say
 * how many): they are nobody's answers, and a row "unknown" would read as a model.
 */
export const NO_MODEL = 'unknown';
