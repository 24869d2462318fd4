import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { grades, judges, rubrics, rubricVersions } from '../../db/schema.ts';
import type { GradeStatus } from '../../domain/grades.ts';
import type { NO_QUORUM_STATUS } from '../../domain/panel.ts';
import type { GradeRow } from '../../db/grade-store.ts';
import { type JudgeIdentity, LEXICAL_NOTE } from '../../judges/engine.ts';
import type { GradeReport } from '../../judges/report.ts';
import type { PanelDetail } from './panel-report.ts';

/**
 * One grade, in the one shape every front returns it: `assay grade --json`, POST /api/grades and the
 * grades of /answers/:id. A fresh grade and a stored one go through the same mapper (toGradeDetail over
 * the grades row), so the two cannot drift apart. Documented field by field in docs/grades.md.
 */

/** The engine's report of a fresh grade (scores, items, claims, meta, usage, judge), plus what the stored row adds. */
export interface GradeDetail extends Omit<GradeReport, 'status'> {
  /** The grades row (one per answer × judge config; a re-grade replaces it and keeps the id). */
  gradeId: number;
  answerId: number;
  /** Only `ok` carries scores; a failure is a status with meta.reason, never a score. A panel below its quorum: no_quorum. */
  status: GradeStatus | typeof NO_QUORUM_STATUS;
  /** The rubric version the grade was made against. */
  rubric: { id: string; version: number } | null;
  /** When this grade was written (ISO 8601). */
  createdAt: string;
  /** A panel judge's report (docs/panels.md); null for a plain judge. */
  panel: PanelDetail | null;
}

/** The grades row as the mapper needs it (the typed drizzle row, or the row just written). */
export type GradeRowLike = Pick<
  GradeRow,
  'answerId' | 'status' | 'completeness' | 'correctness' | 'f1' | 'items' | 'claims' | 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'costUsd' | 'latencyMs'
> & { id: number; meta: Record<string, unknown> | null; createdAt: Date };

/** A judges row's identity, for grades written before the engine stored it in meta.judge. */
export interface JudgeRowLike {
  slug: string;
  provider: string;
  model: string;
  configHash: string;
  config: unknown;
}

function identityOf(j: JudgeRowLike): JudgeIdentity {
  const baseline = j.provider === 'lexical';
  const mode = (j.config as { mode?: string } | null)?.mode ?? 'rubric';
  return { id: j.slug, provider: j.provider, model: j.model, mode, configHash: j.configHash, baseline, ...(baseline ? { note: LEXICAL_NOTE } : {}) };
}

type StoredItem = Omit<GradeReport['items'][number], 'evidence' | 'confidence' | 'confidenceSource'> & { evidence?: string | null } & Partial<Pick<GradeReport['items'][number], 'confidence' | 'confidenceSource'>>;
type StoredClaim = { text?: string | null; verdict: string };

export function toGradeDetail(row: GradeRowLike, rubric: { id: string; version: number } | null, judgeRow?: JudgeRowLike): GradeDetail {
  // The row's meta holds the report's meta plus what the engine knew of the call (judge, cached, calls).
  const { judge, cached, calls, panel, ...meta } = (row.meta ?? {}) as Record<string, unknown>;
  const identity = (judge as JudgeIdentity | undefined) ?? (judgeRow ? identityOf(judgeRow) : undefined);
  if (!identity) throw new Error(`grade ${row.id}: no judge identity (meta.judge missing and no judges row given)`);
  return {
    gradeId: row.id,
    answerId: row.answerId,
    status: row.status as GradeDetail['status'],
    completeness: row.completeness,
    correctness: row.correctness,
    f1: row.f1,
    // Grades stored before confidence existed have neither field: null, like a judge that gives none.
    items: ((row.items ?? []) as StoredItem[]).map((i) => ({ id: i.id, weight: i.weight, verdict: i.verdict, evidence: i.evidence ?? '', points: i.points, confidence: i.confidence ?? null, confidenceSource: i.confidenceSource ?? null })),
    claims: ((row.claims ?? []) as StoredClaim[]).map((c) => ({ text: c.text ?? '', verdict: c.verdict })),
    meta,
    usage: {
      calls: Number(calls ?? 0),
      cached: cached === true,
      input: row.inputTokens ?? 0,
      output: row.outputTokens ?? 0,
      cacheRead: row.cacheReadTokens ?? 0,
      cacheWrite: row.cacheWriteTokens ?? 0,
      costUsd: row.costUsd,
      latencyMs: row.latencyMs ?? 0,
    },
    judge: identity,
    rubric,
    createdAt: row.createdAt.toISOString(),
    panel: (panel as PanelDetail | undefined) ?? null,
  };
}

/**
 * The grade a failed call left stored under its key (answer, judges row, rubric version), with the call in
 * meta.lastAttempt: the upsert notes it there, except on a grade committed after the statement's snapshot
 * (db/grade-store.ts), so the front is told of the failure either way.
 */
export async function keptGrade(
  database: Database,
  key: { answerId: number; judgeId: number; rubricVersionId: number },
  rubric: { id: string; version: number },
  attempt: { status: string; reason: string | null; calls: number },
): Promise<GradeDetail> {
  const g = await storedGrade(database, key, rubric);
  return g.meta.lastAttempt ? g : { ...g, meta: { ...g.meta, lastAttempt: { ...attempt, at: new Date().toISOString() } } };
}

/** The grade stored under its key (answer, judges row, rubric version), which must exist. */
export async function storedGrade(database: Database, key: { answerId: number; judgeId: number; rubricVersionId: number }, rubric: { id: string; version: number }): Promise<GradeDetail> {
  const [row] = await database.db
    .select({ g: grades, j: { slug: judges.slug, provider: judges.provider, model: judges.model, configHash: judges.configHash, config: judges.config } })
    .from(grades)
    .innerJoin(judges, eq(judges.id, grades.judgeId))
    .where(and(eq(grades.answerId, key.answerId), eq(grades.judgeId, key.judgeId), eq(grades.rubricVersionId, key.rubricVersionId)));
  if (!row) throw new Error(`no grade of answer ${key.answerId} by judges row ${key.judgeId} against rubric version ${key.rubricVersionId}`);
  return toGradeDetail(row.g, rubric, row.j);
}

/** A stored grade with what the answer page shows beside it. */
export interface AnswerGrade {
  grade: GradeDetail;
  /** The judge's prompt template file (its config's `prompt`), if it has one. */
  prompt: string | null;
  /** The rubric version's database id (the page shows that version's item texts). */
  rubricVersionId: number | null;
}

/** Every judge's grade of an answer, newest first, through the typed schema. */
export async function gradesOfAnswer(database: Database, answerId: number): Promise<AnswerGrade[]> {
  const rows = await database.db
    .select({ g: grades, j: { slug: judges.slug, provider: judges.provider, model: judges.model, configHash: judges.configHash, config: judges.config }, slug: rubrics.slug, version: rubricVersions.version })
    .from(grades)
    .innerJoin(judges, eq(judges.id, grades.judgeId))
    .leftJoin(rubricVersions, eq(rubricVersions.id, grades.rubricVersionId))
    .leftJoin(rubrics, eq(rubrics.id, rubricVersions.rubricId))
    .where(eq(grades.answerId, answerId))
    .orderBy(desc(grades.createdAt), desc(grades.id));
  return rows.map((r) => ({
    grade: toGradeDetail(r.g, r.slug !== null && r.version !== null ? { id: r.slug, version: r.version } : null, r.j),
    prompt: (r.j.config as { prompt?: string } | null)?.prompt ?? null,
    rubricVersionId: r.g.rubricVersionId,
  }));
}
