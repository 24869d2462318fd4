import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { answers, runs } from '../db/schema.ts';
import { badInput } from '../domain/errors.ts';
import { sha256 } from '../judges/config.ts';
import { getAnswer } from './answers.ts';
import type { GradeRequest } from './grading.ts';
import { getRubric } from './rubrics.ts';

/**
 * The bad-input checks of one interactive grade, read-only and before anything is written. Opening a
 * grading session registers the judge, and a rubric document is versioned before answer text is
 * stored: without these checks first, a refused grade (unknown answer or rubric, empty text, text
 * that clashes with a stored answer) would still leave those rows behind.
 */
export async function checkGradeRequest(database: Database, req: GradeRequest): Promise<void> {
  let answerRubric: string | null = null;
  if ('id' in req.answer) {
    const a = await getAnswer(database, req.answer.id);
    if (a.text === null || a.text.trim() === '') throw badInput(`answer ${a.id}: has no text to grade (status ${a.status})`);
    answerRubric = a.rubric;
  } else {
    const { text } = req.answer;
    if (text.trim() === '') throw badInput('answer: empty text');
    const runName = req.answer.run ?? 'adhoc';
    const externalId = req.answer.externalId ?? `sha256-${sha256(text).slice(0, 16)}`;
    const [stored] = await database.db
      .select({ text: answers.text })
      .from(answers)
      .innerJoin(runs, eq(runs.id, answers.runId))
      .where(and(eq(runs.name, runName), eq(answers.externalId, externalId)));
    if (stored && stored.text !== text) throw badInput(`answer: run '${runName}' already has answer '${externalId}' with different text`);
  }
  const r = req.rubric ?? (answerRubric ? { slug: answerRubric } : undefined);
  if (!r) throw badInput('rubric: none given and the answer names no rubric');
  if ('slug' in r) await getRubric(database, r.slug, r.version);
}
