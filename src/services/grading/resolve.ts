import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { answers, rubrics, runs } from '../../db/schema.ts';
import { NO_MODEL } from '../../domain/answers.ts';
import { badInput, notFound } from '../../domain/errors.ts';
import type { Rubric } from '../../domain/rubric.ts';
import { sha256 } from '../../judges/config.ts';
import type { JudgeImage } from '../../judges/prompt.ts';
import type { UnverifiablePolicy } from '../../scoring/description/score.ts';
import { getRubric, storeRubric, toRubric } from '../rubrics.ts';
import { GRADED_TASKS, skipReason } from './needs-grading.ts';

/**
 * What one interactive grade is about — a rubric and an answer, stored or given — and how each is
 * found or stored. The read-only checks (checks.ts) and the grade itself use the same names and keys.
 */

/** The run answer text is stored under when the caller names none (`assay grade`, POST /api/grades). */
export const ADHOC_RUN = 'adhoc';

export interface GradeRequest {
  /** A stored rubric (latest version unless given), or a rubric document (imported/versioned first). */
  rubric?: { slug: string; version?: number } | Rubric;
  /**
   * A stored answer, or answer text (stored under run `run`, default ADHOC_RUN, of model `model`: a run
   * is one model, so a model unlike the run's is bad input; without one the run's model, or NO_MODEL
   * for a new run — and the reports that rank models leave such answers out).
   */
  answer: { id: number } | AdhocAnswer;
  image?: JudgeImage;
  unverifiable?: UnverifiablePolicy;
}

/**
 * What a stored grade's meta says of the policy its correctness was computed under: `exclude` is said, the
 * default is not. A regrade under the other policy changes correctness, so the grade says which it holds.
 */
export const policyMeta = (policy: UnverifiablePolicy | undefined): { unverifiable?: 'exclude' } => (policy === 'exclude' ? { unverifiable: 'exclude' } : {});

export interface ResolvedRubric {
  rubric: Rubric;
  versionId: number;
  version: number;
}

export interface AdhocAnswer {
  text: string;
  run?: string;
  model?: string;
  externalId?: string;
}

/** Where answer text is stored: its run, and its id there (given, or derived from the text). */
export function adhocKey(answer: AdhocAnswer): { run: string; externalId: string } {
  return { run: answer.run ?? ADHOC_RUN, externalId: answer.externalId ?? `sha256-${sha256(answer.text).slice(0, 16)}` };
}

/** The problem with storing answer text of `model` under a run whose model is `runModel`, or null. */
export function runModelProblem(run: string, runModel: string | undefined, model: string | undefined): string | null {
  if (model === undefined || runModel === undefined || runModel === model) return null;
  const holds = runModel === NO_MODEL ? 'answers that name no model' : `answers of model '${runModel}'`;
  return `model: run '${run}' holds ${holds}, and a run is one model: name another run for '${model}' (--run, or run in the request)`;
}

/**
 * A stored answer a judge grades (needs-grading.ts): bad input for a task no judge grades, an answer
 * whose call ended in error (whatever text it kept) or an answer without text. One without a rubric is graded against the rubric the request names (rubricRef).
 */
export async function gradableAnswer(database: Database, id: number): Promise<{ id: number; text: string; rubric: string | null }> {
  const [a] = await database.db
    .select({ text: answers.text, status: answers.status, task: answers.task, rubric: rubrics.slug, skip: skipReason })
    .from(answers)
    .leftJoin(rubrics, eq(rubrics.id, answers.rubricId))
    .where(eq(answers.id, id));
  if (!a) throw notFound(`answer ${id} not found`);
  if (a.skip === 'task') throw badInput(`answer ${id}: task ${a.task} is not graded by a judge (only ${GRADED_TASKS.join(' and ')} answers are)`);
  if (a.skip === 'answerError') throw badInput(`answer ${id}: its call ended in error (status error): its text is not the model's answer, so no judge grades it`);
  if (a.skip === 'noText') throw badInput(`answer ${id}: has no text to grade (status ${a.status})`);
  return { id, text: a.text!, rubric: a.rubric };
}

/** The rubric named by the request, else the answer's own. */
export function rubricRef(req: GradeRequest, answerRubric: string | null): NonNullable<GradeRequest['rubric']> {
  const r = req.rubric ?? (answerRubric ? { slug: answerRubric } : undefined);
  if (!r) throw badInput('rubric: none given and the answer names no rubric');
  return r;
}

export async function resolveRubric(database: Database, req: GradeRequest, answerRubric: string | null): Promise<ResolvedRubric> {
  const r = rubricRef(req, answerRubric);
  if ('slug' in r) {
    const view = await getRubric(database, r.slug, r.version);
    return { rubric: toRubric(view), versionId: view.rubricVersionId, version: view.version };
  }
  const stored = await database.db.transaction((tx) => storeRubric(tx, r));
  return { rubric: r, versionId: stored.versionId, version: stored.version };
}

/** The stored answer, or the answer text stored under its ad hoc key (an equal text there is reused). */
export async function resolveAnswer(database: Database, req: GradeRequest): Promise<{ id: number; text: string; rubric: string | null }> {
  if ('id' in req.answer) return gradableAnswer(database, req.answer.id);
  const { text, model } = req.answer;
  if (text.trim() === '') throw badInput('answer: empty text');
  const key = adhocKey(req.answer);
  // The rubric it is graded against is resolved (and a document stored) first: the answer names it, so
  // it has a size bucket in the reports and a rubric to annotate against.
  const r = req.rubric ? ('slug' in req.rubric ? req.rubric.slug : req.rubric.id) : null;
  return database.db.transaction(async (tx) => {
    await tx.insert(runs).values({ name: key.run, model: model ?? NO_MODEL }).onConflictDoNothing();
    const [run] = await tx.select({ id: runs.id, model: runs.model }).from(runs).where(eq(runs.name, key.run));
    const problem = runModelProblem(key.run, run!.model, model);
    if (problem) throw badInput(problem);
    const [rubric] = r ? await tx.select({ id: rubrics.id }).from(rubrics).where(eq(rubrics.slug, r)) : [];
    await tx.insert(answers).values({ runId: run!.id, externalId: key.externalId, task: 'describe', text, rubricId: rubric?.id ?? null }).onConflictDoNothing();
    const [row] = await tx.select({ id: answers.id, text: answers.text }).from(answers).where(and(eq(answers.runId, run!.id), eq(answers.externalId, key.externalId)));
    if (row!.text !== text) throw badInput(`answer: run '${key.run}' already has answer '${key.externalId}' with different text`);
    return { id: row!.id, text, rubric: null };
  });
}
