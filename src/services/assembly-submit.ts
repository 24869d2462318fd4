import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { answers, runs } from '../db/schema.ts';
import type { GridScore } from '../scoring/grid/index.ts';
import { scoreOne } from './assemblies.ts';
import { parseAnswerRows, storeAnswers } from './import-answers.ts';

/**
 * One assembly answer in, its deterministic score out: the answer and its score are written in one
 * transaction, so a failure leaves neither. Re-submitting identical content is idempotent (the stored
 * answer is re-scored); different content under the same id is a conflict.
 */

export interface AssemblySubmission {
  run: string;
  model: string;
  puzzle: string;
  /** Answer id within the run; defaults to the puzzle id (one assembly per puzzle and run). */
  id?: string;
  /** The model's output: text with a grid block, or the JSON grid / mapping itself. */
  answer: string | unknown[] | Record<string, unknown>;
  /** Clue mode: piece ids given in place. */
  given?: string[];
  effort?: string;
  tags?: string[];
  inputTokens?: number;
  outputTokens?: number;
}

export interface SubmittedAssembly extends GridScore {
  answerId: number;
  created: boolean;
}

export async function submitAssembly(database: Database, s: AssemblySubmission): Promise<SubmittedAssembly> {
  const text = typeof s.answer === 'string' ? s.answer : JSON.stringify(s.answer);
  const row = {
    ...(s.id !== undefined ? { id: s.id } : {}),
    run: s.run,
    model: s.model,
    task: 'assemble',
    puzzle: s.puzzle,
    text,
    ...(s.effort !== undefined ? { effort: s.effort } : {}),
    ...(s.tags !== undefined ? { tags: s.tags } : {}),
    ...(s.inputTokens !== undefined ? { input_tokens: s.inputTokens } : {}),
    ...(s.outputTokens !== undefined ? { output_tokens: s.outputTokens } : {}),
    ...(s.given !== undefined ? { meta: { given: s.given } } : {}),
  };
  const prepared = parseAnswerRows({ path: 'body', content: JSON.stringify(row) });
  return database.db.transaction(async (tx) => {
    const stored = await storeAnswers(tx, prepared, {});
    const created = stored.imported === 1;
    let answerId = stored.answerIds[0];
    if (answerId === undefined) {
      const [existing] = await tx
        .select({ id: answers.id })
        .from(answers)
        .innerJoin(runs, eq(runs.id, answers.runId))
        .where(and(eq(runs.name, s.run), eq(answers.externalId, prepared[0]!.externalId)));
      answerId = existing!.id;
    }
    const { answerId: _, ...score } = await scoreOne(tx, answerId);
    return { answerId, created, ...score };
  });
}
