import { asc, count, eq, and, type SQL } from 'drizzle-orm';
import { notFound } from '../domain/errors.ts';
import type { Database, Queryable } from '../db/client.ts';
import { answers, runs } from '../db/schema.ts';

/** A run: one model (at one effort, under some condition tags) answering a set of tasks. */

export interface RunView {
  id: number;
  name: string;
  model: string;
  effort: string | null;
  tags: string[];
  answers: number;
  createdAt: Date;
}

export async function listRuns(
  database: Database,
  opts: { limit?: number; offset?: number; model?: string } = {},
): Promise<{ total: number; runs: RunView[] }> {
  const db = database.db;
  const conds: SQL[] = [];
  if (opts.model) conds.push(eq(runs.model, opts.model));
  const cond = conds.length ? and(...conds) : undefined;
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(runs).where(cond);
  const rows = await db
    .select({ run: runs, answers: count(answers.id) })
    .from(runs)
    .leftJoin(answers, eq(answers.runId, runs.id))
    .where(cond)
    .groupBy(runs.id)
    .orderBy(asc(runs.name))
    .limit(opts.limit ?? 50)
    .offset(opts.offset ?? 0);
  return { total, runs: rows.map((r) => ({ ...r.run, answers: r.answers })) };
}

export async function getRun(database: Database | { db: Queryable }, name: string): Promise<RunView> {
  const [row] = await database.db
    .select({ run: runs, answers: count(answers.id) })
    .from(runs)
    .leftJoin(answers, eq(answers.runId, runs.id))
    .where(eq(runs.name, name))
    .groupBy(runs.id);
  if (!row) throw notFound(`run '${name}' not found`);
  return { ...row.run, answers: row.answers };
}

/** Every condition tag some run carries, sorted (a page naming a tag no run has answers 404, not an empty comparison). */
export async function runTags(database: Database): Promise<string[]> {
  const r = await database.execute(`select distinct jsonb_array_elements_text(tags) as tag from runs order by tag`);
  return r.rows.map((x) => String(x.tag));
}
