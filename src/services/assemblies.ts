import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import { badInput, notFound } from '../domain/errors.ts';
import { inexactIdNumber, parseGridTruth } from '../domain/grid.ts';
import { scoreGrid, type GridScore } from '../scoring/grid/index.ts';
import type { Database, Queryable } from '../db/client.ts';
import { answers, assemblyScores, puzzles, runs } from '../db/schema.ts';
import { notOfErrorAnswer } from './report-facts.ts';

/**
 * Assembly answers are scored deterministically (design §2.2) against their puzzle's truth and the
 * document is stored as one row per answer; re-scoring replaces it. A clue-mode answer lists the ids
 * given in place under meta.given. An answer stored with status error (the model call failed) has no
 * score: a failure is a status, never a score (0 for the empty text it kept was read as a real score).
 * None is stored for one, and the readers serve none of the rows an old database or an import still holds.
 */

export interface StoredAssemblyScore extends GridScore {
  answerId: number;
}

/** Inside an open transaction (seeding, batch imports). Null for an error answer: no score, and a stored one is removed. */
export async function scoreOne(tx: Queryable, answerId: number): Promise<StoredAssemblyScore | null> {
  const [row] = await tx
    .select({ a: answers, p: puzzles })
    .from(answers)
    .leftJoin(puzzles, eq(puzzles.id, answers.puzzleId))
    .where(eq(answers.id, answerId));
  if (!row) throw notFound(`answer ${answerId} not found`);
  if (row.a.task !== 'assemble' && row.a.task !== 'describe-then-solve') {
    throw badInput(`answer ${answerId}: task '${row.a.task}' is not an assembly`);
  }
  if (!row.p) throw badInput(`answer ${answerId}: has no puzzle to score against`);
  if (row.a.status === 'error') {
    // Re-scoring replaces the score: an error answer's is none (one stored before, or imported, goes).
    await tx.delete(assemblyScores).where(eq(assemblyScores.answerId, answerId));
    return null;
  }
  const truth = parseGridTruth({ rows: row.p.rows, cols: row.p.cols, layout: row.p.layout, ...(row.p.edges ? { edges: row.p.edges } : {}) }, `puzzle ${row.p.slug}`);
  const given = row.a.meta.given;
  if (given !== undefined && !(Array.isArray(given) && given.every((g) => typeof g === 'string' || typeof g === 'number'))) {
    throw badInput(`answer ${answerId}: meta.given: must be an array of piece ids`);
  }
  const inexact = given === undefined ? -1 : (given as unknown[]).findIndex((g) => inexactIdNumber(g) !== null);
  if (inexact >= 0) throw badInput(`answer ${answerId}: meta.given[${inexact}]: ${inexactIdNumber((given as unknown[])[inexact])}`);
  const score = scoreGrid(truth, row.a.text ?? '', given ? { given: (given as Array<string | number>).map(String) } : {});
  const values = {
    answerId,
    status: score.status,
    problems: score.problems,
    direct: score.direct,
    exactMatch: score.exactMatch,
    neighbour: score.neighbour,
    adjacency: score.adjacency,
    proximity: score.proximity,
    shapeCompatibility: score.shapeCompatibility,
    byPosition: score.byPosition,
  };
  await tx
    .insert(assemblyScores)
    .values(values)
    .onConflictDoUpdate({ target: assemblyScores.answerId, set: { ...values, createdAt: new Date() } });
  return { answerId, ...score };
}

/** Scores one assembly answer and stores (or replaces) its score; null for an error answer (scoreOne). */
export async function scoreAndStoreAssembly(database: Database, answerId: number): Promise<StoredAssemblyScore | null> {
  return database.db.transaction((tx) => scoreOne(tx, answerId));
}

export interface AssemblyScoreView extends StoredAssemblyScore {
  answer: string;
  run: string;
  model: string;
  puzzle: string;
  sizeBucket: string | null;
}

export async function listAssemblyScores(
  database: Database,
  opts: { run?: string; model?: string; puzzle?: string; limit?: number; offset?: number } = {},
): Promise<{ total: number; scores: AssemblyScoreView[] }> {
  const db = database.db;
  const c: SQL[] = [];
  if (opts.run) c.push(eq(runs.name, opts.run));
  if (opts.model) c.push(eq(runs.model, opts.model));
  if (opts.puzzle) c.push(eq(puzzles.slug, opts.puzzle));
  // No score of an error answer (rows stored before scoring skipped them, or imported): report-facts.ts's rule.
  c.push(sql.raw(`true ${notOfErrorAnswer('"assembly_scores"')}`));
  const cond = and(...c);
  const [{ total } = { total: 0 }] = await db
    .select({ total: count() })
    .from(assemblyScores)
    .innerJoin(answers, eq(answers.id, assemblyScores.answerId))
    .innerJoin(runs, eq(runs.id, answers.runId))
    .innerJoin(puzzles, eq(puzzles.id, answers.puzzleId))
    .where(cond);
  const rows = await db
    .select({ s: assemblyScores, answer: answers.externalId, run: runs.name, model: runs.model, puzzle: puzzles.slug, sizeBucket: puzzles.sizeBucket })
    .from(assemblyScores)
    .innerJoin(answers, eq(answers.id, assemblyScores.answerId))
    .innerJoin(runs, eq(runs.id, answers.runId))
    .innerJoin(puzzles, eq(puzzles.id, answers.puzzleId))
    .where(cond)
    .orderBy(asc(assemblyScores.answerId))
    .limit(opts.limit ?? 50)
    .offset(opts.offset ?? 0);
  return { total, scores: rows.map((r) => ({ ...toScore(r.s), answer: r.answer, run: r.run, model: r.model, puzzle: r.puzzle, sizeBucket: r.sizeBucket })) };
}

export async function getAssemblyScore(database: Database, answerId: number): Promise<StoredAssemblyScore> {
  const [row] = await database.db.select({ s: assemblyScores, status: answers.status }).from(answers).leftJoin(assemblyScores, eq(assemblyScores.answerId, answers.id)).where(eq(answers.id, answerId));
  // The status says why an error answer has none, whatever row an old database or an import holds for it.
  if (row?.status === 'error') throw notFound(`answer ${answerId} has no assembly score: its model call failed (status error)`);
  if (!row?.s) throw notFound(`answer ${answerId} has no assembly score`);
  return toScore(row.s);
}

function toScore(s: typeof assemblyScores.$inferSelect): StoredAssemblyScore {
  return {
    answerId: s.answerId,
    status: s.status as GridScore['status'],
    problems: s.problems,
    direct: s.direct,
    exactMatch: s.exactMatch,
    neighbour: s.neighbour,
    adjacency: s.adjacency,
    proximity: s.proximity,
    shapeCompatibility: s.shapeCompatibility,
    byPosition: s.byPosition,
  };
}
