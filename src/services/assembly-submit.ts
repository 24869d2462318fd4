import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { parseGridTruth, type GridTruth } from '../domain/grid.ts';
import { answers, puzzles, runs } from '../db/schema.ts';
import { scoreGrid, type GridScore } from '../scoring/grid/index.ts';
import { scoreOne } from './assemblies.ts';
import { writeBatched } from './assembly-batch.ts';
import { isUniqueViolation } from './db-errors.ts';
import { parseAnswerRows, sameTags, storeAnswers } from './import-answers.ts';

/**
 * One assembly answer in, its deterministic score out (POST /api/assemblies). The answer and its score
 * are written together — one statement on the fast path, one transaction otherwise — so a failure
 * leaves neither. Re-submitting identical content is idempotent (the stored answer is re-scored);
 * different content under the same id is refused.
 *
 * Fast path: a new answer to an existing run. The puzzle's truth (immutable once stored) and the run's
 * id and model are cached per database, the score is computed before touching the database, and the
 * answer and score rows go in with one INSERT … WITH, shared with the submissions that arrived in the
 * same instant (assembly-batch.ts). Everything else (a new run, a repeat id) takes the general path
 * through import-answers, which owns those rules.
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

interface Cache {
  puzzles: Map<string, { id: number; truth: GridTruth }>;
  runs: Map<string, { id: number; model: string; effort: string | null; tags: string[] }>;
}
const caches = new WeakMap<Database, Cache>();
const cacheOf = (d: Database): Cache => caches.get(d) ?? caches.set(d, { puzzles: new Map(), runs: new Map() }).get(d)!;

async function puzzleOf(database: Database, slug: string): Promise<{ id: number; truth: GridTruth } | null> {
  const cache = cacheOf(database);
  const hit = cache.puzzles.get(slug);
  if (hit) return hit;
  const [p] = await database.db.select().from(puzzles).where(eq(puzzles.slug, slug));
  if (!p) return null;
  const entry = { id: p.id, truth: parseGridTruth({ rows: p.rows, cols: p.cols, layout: p.layout, ...(p.edges ? { edges: p.edges } : {}) }, `puzzle ${p.slug}`) };
  cache.puzzles.set(slug, entry);
  return entry;
}

async function runOf(database: Database, name: string): Promise<{ id: number; model: string; effort: string | null; tags: string[] } | null> {
  const cache = cacheOf(database);
  const hit = cache.runs.get(name);
  if (hit) return hit;
  const [r] = await database.db.select({ id: runs.id, model: runs.model, effort: runs.effort, tags: runs.tags }).from(runs).where(eq(runs.name, name));
  if (r) cache.runs.set(name, r);
  return r ?? null;
}

/**
 * Concurrent first submissions to a new run race to create it; the losers see a unique violation.
 * One retry suffices: the run then exists and the fast path takes it.
 */
export async function submitAssembly(database: Database, s: AssemblySubmission): Promise<SubmittedAssembly> {
  try {
    return await submitOnce(database, s);
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    return submitOnce(database, s);
  }
}

async function submitOnce(database: Database, s: AssemblySubmission): Promise<SubmittedAssembly> {
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
  // Validates the row exactly as an import would (required fields, id rules), before any write.
  const prepared = parseAnswerRows({ path: 'body', content: JSON.stringify(row) });
  const [puzzle, run] = await Promise.all([puzzleOf(database, s.puzzle), runOf(database, s.run)]);
  // A run restated differently (model, effort, tags) takes the general path, which refuses it.
  const sameRun = run && run.model === s.model && (s.effort === undefined || s.effort === run.effort) && (s.tags === undefined || sameTags(s.tags, run.tags));
  if (puzzle && run && sameRun) {
    const score = scoreGrid(puzzle.truth, text, s.given ? { given: s.given } : {});
    const id = await writeBatched(database, {
      runId: run.id,
      externalId: prepared[0]!.externalId,
      puzzleId: puzzle.id,
      text,
      status: text.trim() === '' ? 'no_answer' : 'ok',
      inputTokens: s.inputTokens ?? null,
      outputTokens: s.outputTokens ?? null,
      meta: s.given !== undefined ? { given: s.given } : {},
      score,
    });
    if (id !== null) return { answerId: id, created: true, ...score };
    // The id already exists in this run: the general path decides (same content → re-score, else refuse).
  }
  return database.db.transaction(async (tx) => {
    const stored = await storeAnswers(tx, prepared, {});
    let answerId = stored.answerIds[0];
    if (answerId === undefined) {
      const [existing] = await tx
        .select({ id: answers.id })
        .from(answers)
        .innerJoin(runs, eq(runs.id, answers.runId))
        .where(and(eq(runs.name, s.run), eq(answers.externalId, prepared[0]!.externalId)));
      answerId = existing!.id;
    }
    const scored = await scoreOne(tx, answerId);
    // A submission is ok or no_answer (never error: a same-id error answer differs and is refused), so it has a score.
    if (!scored) throw new Error(`answer ${answerId}: a submitted assembly was stored with status error`);
    const { answerId: _, ...score } = scored;
    return { answerId, created: stored.imported === 1, ...score };
  });
}
