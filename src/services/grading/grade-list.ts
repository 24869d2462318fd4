import { createHash } from 'node:crypto';
import { and, count, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { answers, grades, judges, rubrics, rubricVersions, runs } from '../../db/schema.ts';
import { badInput, notFound } from '../../domain/errors.ts';
import type { GradeStatus } from '../../domain/grades.ts';
import type { NO_QUORUM_STATUS } from '../../domain/panel.ts';
import { toGradeDetail, type GradeDetail } from './grade-detail.ts';
import { findRun } from './run-ref.ts';

/**
 * Reading stored grades back one by one and as a list (GET /api/grades, /api/grades/{id}), each in the
 * one grade shape (GradeDetail). Grades are versioned (docs/grades.md): the list returns every stored
 * grade, earlier versions included — not only the newest per answer × judge.
 *
 * The list is keyset-paginated, newest grade id first: a cursor is the last id of the page, so a walk
 * is stable under inserts (new grades get larger ids, before any cursor) and never repeats or skips a
 * grade. A grade replaced in place (same answer, judge configuration and rubric version) keeps its id
 * and so its place. The cursor also holds a digest of the walk's filters: passed with other filters it
 * is refused, since read as an id of the other list it would skip that list's grades above it.
 */

export interface GradeFilters {
  /** Run name or id (a run named "12" wins over id 12); unknown is not found. */
  run?: string;
  /** The run's model. */
  model?: string;
  /** Judge id as in judges/ (GradeDetail.judge.id): every configuration of it. */
  judge?: string;
  status?: GradeStatus | typeof NO_QUORUM_STATUS;
  /** One answer's grades. */
  answerId?: number;
}

export interface GradePage {
  items: GradeDetail[];
  /** Grades matching the filters, over all pages. */
  total: number;
  limit: number;
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

const CURSOR_PREFIX = 'g2:';

/** The filters of a walk as the cursor holds them: the run by id (named by name or id, one run), the rest as given. */
function filterDigest(f: GradeFilters, runId: number | undefined): string {
  const key = JSON.stringify([runId ?? null, f.model ?? null, f.judge ?? null, f.status ?? null, f.answerId ?? null]);
  return createHash('sha256').update(key).digest('base64url').slice(0, 11);
}

/** Opaque to clients: `g2:<last id>:<filter digest>`; the prefix versions the format so a cursor of another list is refused. */
export const encodeGradeCursor = (id: number, digest = filterDigest({}, undefined)): string => Buffer.from(`${CURSOR_PREFIX}${id}:${digest}`, 'utf8').toString('base64url');

export function decodeGradeCursor(cursor: string, digest = filterDigest({}, undefined)): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^g2:([1-9][0-9]{0,15}):([A-Za-z0-9_-]{11})$/.exec(text);
  const id = m ? Number(m[1]) : NaN;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor) || !m || !Number.isSafeInteger(id)) throw badInput('cursor: not a cursor of this list (pass the nextCursor of the previous page)');
  if (m[2] !== digest) throw badInput('cursor: given by this list with other filters (run, model, judge, status, answer); pass the filters of the walk it came from, or start again without a cursor');
  return id;
}

/** The columns toGradeDetail reads, named: never the raw output or the judge's whole config. */
const columns = {
  g: {
    id: grades.id,
    answerId: grades.answerId,
    status: grades.status,
    completeness: grades.completeness,
    correctness: grades.correctness,
    f1: grades.f1,
    items: grades.items,
    claims: grades.claims,
    meta: grades.meta,
    inputTokens: grades.inputTokens,
    outputTokens: grades.outputTokens,
    cacheReadTokens: grades.cacheReadTokens,
    cacheWriteTokens: grades.cacheWriteTokens,
    costUsd: grades.costUsd,
    latencyMs: grades.latencyMs,
    createdAt: grades.createdAt,
  },
  // The identity of grades written before meta.judge existed; of the config only the mode is needed.
  j: { slug: judges.slug, provider: judges.provider, model: judges.model, configHash: judges.configHash, mode: sql<string | null>`${judges.config}->>'mode'` },
  rubricSlug: rubrics.slug,
  rubricVersion: rubricVersions.version,
};

type Row = { g: Parameters<typeof toGradeDetail>[0]; j: { slug: string; provider: string; model: string; configHash: string; mode: string | null }; rubricSlug: string | null; rubricVersion: number | null };

function detail(r: Row): GradeDetail {
  const rubric = r.rubricSlug !== null && r.rubricVersion !== null ? { id: r.rubricSlug, version: r.rubricVersion } : null;
  return toGradeDetail(r.g, rubric, { ...r.j, config: r.j.mode === null ? {} : { mode: r.j.mode } });
}

function joined(database: Database) {
  return database.db
    .select(columns)
    .from(grades)
    .innerJoin(judges, eq(judges.id, grades.judgeId))
    .innerJoin(answers, eq(answers.id, grades.answerId))
    .innerJoin(runs, eq(runs.id, answers.runId))
    .leftJoin(rubricVersions, eq(rubricVersions.id, grades.rubricVersionId))
    .leftJoin(rubrics, eq(rubrics.id, rubricVersions.rubricId));
}

async function conditions(database: Database, f: GradeFilters): Promise<{ c: SQL[]; runId: number | undefined }> {
  const c: SQL[] = [];
  const runId = f.run === undefined ? undefined : (await findRun(database, f.run)).id;
  if (runId !== undefined) c.push(eq(answers.runId, runId));
  if (f.model !== undefined) c.push(eq(runs.model, f.model));
  if (f.judge !== undefined) c.push(eq(judges.slug, f.judge));
  if (f.status !== undefined) c.push(eq(grades.status, f.status));
  if (f.answerId !== undefined) c.push(eq(grades.answerId, f.answerId));
  return { c, runId };
}

export async function listGrades(database: Database, f: GradeFilters & { limit?: number; cursor?: string } = {}): Promise<GradePage> {
  const limit = f.limit ?? 50;
  const { c, runId } = await conditions(database, f);
  const digest = filterDigest(f, runId);
  const after = f.cursor === undefined ? undefined : decodeGradeCursor(f.cursor, digest);
  const [{ total } = { total: 0 }] = await database.db
    .select({ total: count() })
    .from(grades)
    .innerJoin(judges, eq(judges.id, grades.judgeId))
    .innerJoin(answers, eq(answers.id, grades.answerId))
    .innerJoin(runs, eq(runs.id, answers.runId))
    .where(and(...c));
  // One row more than the page says whether another page follows, without a second query.
  const rows = await joined(database)
    .where(and(...c, ...(after === undefined ? [] : [lt(grades.id, after)])))
    .orderBy(desc(grades.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return { items: page.map(detail), total, limit, nextCursor: rows.length > limit ? encodeGradeCursor(page[page.length - 1]!.g.id, digest) : null };
}

/** One stored grade by its id (GradeDetail.gradeId). */
export async function getGrade(database: Database, id: number): Promise<GradeDetail> {
  const [row] = await joined(database).where(eq(grades.id, id));
  if (!row) throw notFound(`grade ${id} not found`);
  return detail(row);
}
