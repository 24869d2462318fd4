import { and, asc, count, eq, type SQL } from 'drizzle-orm';
import { notFound } from '../domain/errors.ts';
import type { Database, Queryable } from '../db/client.ts';
import { answers, puzzles, rubrics, runs } from '../db/schema.ts';
import type { AnswerStatus, TaskKind } from '../domain/answers.ts';

export { importAnswersJsonl, type AnswerDefaults, type AnswerImportResult } from './import-answers.ts';

/** Reading answers back: filtered, paged lists for the API and pages, and one answer in full. */

export interface AnswerView {
  id: number;
  externalId: string;
  run: string;
  model: string;
  effort: string | null;
  runTags: string[];
  task: TaskKind;
  puzzle: string | null;
  rubric: string | null;
  text: string | null;
  status: AnswerStatus;
  inputTokens: number | null;
  outputTokens: number | null;
  meta: Record<string, unknown>;
  createdAt: Date;
}

export interface AnswerFilters {
  run?: string;
  model?: string;
  task?: TaskKind;
  rubric?: string;
  puzzle?: string;
  status?: AnswerStatus;
  limit?: number;
  offset?: number;
}

const columns = { a: answers, r: runs, puzzleSlug: puzzles.slug, rubricSlug: rubrics.slug };

type Row = { a: typeof answers.$inferSelect; r: typeof runs.$inferSelect; puzzleSlug: string | null; rubricSlug: string | null };

function toView(row: Row): AnswerView {
  return {
    id: row.a.id,
    externalId: row.a.externalId,
    run: row.r.name,
    model: row.r.model,
    effort: row.r.effort,
    runTags: row.r.tags,
    task: row.a.task,
    puzzle: row.puzzleSlug,
    rubric: row.rubricSlug,
    text: row.a.text,
    status: row.a.status,
    inputTokens: row.a.inputTokens,
    outputTokens: row.a.outputTokens,
    meta: row.a.meta,
    createdAt: row.a.createdAt,
  };
}

function conditions(f: AnswerFilters): SQL | undefined {
  const c: SQL[] = [];
  if (f.run) c.push(eq(runs.name, f.run));
  if (f.model) c.push(eq(runs.model, f.model));
  if (f.task) c.push(eq(answers.task, f.task));
  if (f.rubric) c.push(eq(rubrics.slug, f.rubric));
  if (f.puzzle) c.push(eq(puzzles.slug, f.puzzle));
  if (f.status) c.push(eq(answers.status, f.status));
  return c.length ? and(...c) : undefined;
}

function joined(db: Queryable) {
  return db
    .select(columns)
    .from(answers)
    .innerJoin(runs, eq(runs.id, answers.runId))
    .leftJoin(puzzles, eq(puzzles.id, answers.puzzleId))
    .leftJoin(rubrics, eq(rubrics.id, answers.rubricId));
}

export async function listAnswers(database: Database, filters: AnswerFilters = {}): Promise<{ total: number; answers: AnswerView[] }> {
  const db = database.db;
  const cond = conditions(filters);
  const [{ total } = { total: 0 }] = await db
    .select({ total: count() })
    .from(answers)
    .innerJoin(runs, eq(runs.id, answers.runId))
    .leftJoin(puzzles, eq(puzzles.id, answers.puzzleId))
    .leftJoin(rubrics, eq(rubrics.id, answers.rubricId))
    .where(cond);
  const rows = await joined(db)
    .where(cond)
    .orderBy(asc(answers.id))
    .limit(filters.limit ?? 50)
    .offset(filters.offset ?? 0);
  return { total, answers: rows.map(toView) };
}

export async function getAnswer(database: Database | { db: Queryable }, id: number): Promise<AnswerView> {
  const [row] = await joined(database.db).where(eq(answers.id, id));
  if (!row) throw notFound(`answer ${id} not found`);
  return toView(row);
}
