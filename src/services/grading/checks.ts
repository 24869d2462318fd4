import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { answers, runs } from '../../db/schema.ts';
import { badInput } from '../../domain/errors.ts';
import { getRubric } from '../rubrics.ts';
import { adhocKey, gradableAnswer, type GradeRequest, rubricRef, runModelProblem } from './resolve.ts';

/**
 * The bad-input checks of one interactive grade, read-only and before anything is written. Opening a
 * grading session registers the judge, and a rubric document is versioned before answer text is
 * stored: without these checks first, a refused grade (unknown answer or rubric, empty text, text
 * that clashes with a stored answer) would still leave those rows behind.
 */
export async function checkGradeRequest(database: Database, req: GradeRequest): Promise<void> {
  let answerRubric: string | null = null;
  if ('id' in req.answer) {
    answerRubric = (await gradableAnswer(database, req.answer.id)).rubric;
  } else {
    const { text } = req.answer;
    if (text.trim() === '') throw badInput('answer: empty text');
    const key = adhocKey(req.answer);
    const [stored] = await database.db
      .select({ text: answers.text })
      .from(answers)
      .innerJoin(runs, eq(runs.id, answers.runId))
      .where(and(eq(runs.name, key.run), eq(answers.externalId, key.externalId)));
    if (stored && stored.text !== text) throw badInput(`answer: run '${key.run}' already has answer '${key.externalId}' with different text`);
    const [run] = await database.db.select({ model: runs.model }).from(runs).where(eq(runs.name, key.run));
    const problem = runModelProblem(key.run, run?.model, req.answer.model);
    if (problem) throw badInput(problem);
  }
  const r = rubricRef(req, answerRubric);
  if ('slug' in r) await getRubric(database, r.slug, r.version);
}
