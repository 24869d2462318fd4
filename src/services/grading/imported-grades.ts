import { createHash } from 'node:crypto';
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { badInput } from '../../domain/errors.ts';
import type { Queryable } from '../../db/client.ts';
import { grades, judges } from '../../db/schema.ts';

/**
 * Scores another tool gave its answers (Inspect scorers, promptfoo grading results, lm-eval metrics,
 * VLMEvalKit hit/score), stored as the grades of a judge of their own: slug `<tool>:<scorer>`, provider
 * `imported`. The score is the grade's completeness (a share in [0, 1]); correctness and F1 stay null, no
 * rubric items or claims (the tool judged the whole answer), and `meta.imported` keeps the value as the
 * tool wrote it. Grades of one import: a rerun of the same file writes nothing (docs/formats.md).
 */

export interface ImportedScore {
  answerId: number;
  tool: string;
  scorer: string;
  value: number;
  raw: string | number | boolean;
  explanation?: string;
}

export const IMPORTED_PROVIDER = 'imported';

async function judgeRowOf(tx: Queryable, tool: string, scorer: string): Promise<number> {
  const slug = `${tool}:${scorer}`;
  const config = { id: slug, provider: IMPORTED_PROVIDER, model: scorer, tool, scorer };
  const configHash = createHash('sha256').update(JSON.stringify(config)).digest('hex');
  await tx.insert(judges).values({ slug, provider: IMPORTED_PROVIDER, model: scorer, config, configHash }).onConflictDoNothing();
  const [row] = await tx.select({ id: judges.id }).from(judges).where(eq(judges.configHash, configHash));
  return row!.id;
}

/** Writes the scores as grades (inside the caller's transaction); returns how many were new. */
export async function storeImportedGrades(tx: Queryable, scores: readonly ImportedScore[]): Promise<{ judges: string[]; stored: number; unchanged: number }> {
  const judgeIds = new Map<string, number>();
  for (const s of scores) {
    const key = `${s.tool}:${s.scorer}`;
    if (!judgeIds.has(key)) judgeIds.set(key, await judgeRowOf(tx, s.tool, s.scorer));
  }
  let stored = 0;
  for (let i = 0; i < scores.length; i += 500) {
    const chunk = scores.slice(i, i + 500);
    const written = await tx
      .insert(grades)
      .values(
        chunk.map((s) => ({
          answerId: s.answerId,
          judgeId: judgeIds.get(`${s.tool}:${s.scorer}`)!,
          status: 'ok' as const,
          completeness: s.value,
          correctness: null,
          f1: null,
          items: [],
          claims: [],
          meta: { imported: { tool: s.tool, scorer: s.scorer, raw: s.raw, ...(s.explanation ? { explanation: s.explanation } : {}) } },
        })),
      )
      .onConflictDoNothing()
      .returning({ answerId: grades.answerId, judgeId: grades.judgeId });
    stored += written.length;
    await refuseChanged(tx, chunk, judgeIds, new Set(written.map((w) => `${w.answerId}:${w.judgeId}`)));
  }
  return { judges: [...judgeIds.keys()], stored, unchanged: scores.length - stored };
}

/**
 * A score already stored for the answer and scorer is unchanged only when it is the same value: a file
 * that says otherwise (a corrected re-export) is refused, naming the first, rather than reported as
 * "unchanged" while the old score stays (the caller's transaction then writes nothing).
 */
async function refuseChanged(tx: Queryable, chunk: readonly ImportedScore[], judgeIds: ReadonlyMap<string, number>, written: ReadonlySet<string>): Promise<void> {
  const kept = chunk.filter((s) => !written.has(`${s.answerId}:${judgeIds.get(`${s.tool}:${s.scorer}`)}`));
  if (kept.length === 0) return;
  const rows = await tx
    .select({ answerId: grades.answerId, judgeId: grades.judgeId, completeness: grades.completeness })
    .from(grades)
    .where(and(inArray(grades.answerId, [...new Set(kept.map((s) => s.answerId))]), inArray(grades.judgeId, [...new Set(judgeIds.values())]), isNull(grades.rubricVersionId)));
  const stored = new Map(rows.map((r) => [`${r.answerId}:${r.judgeId}`, r.completeness]));
  for (const s of kept) {
    const before = stored.get(`${s.answerId}:${judgeIds.get(`${s.tool}:${s.scorer}`)}`);
    if (before !== s.value) {
      throw badInput(`answer ${s.answerId}: the stored ${s.tool}:${s.scorer} score is ${before ?? 'not a score'}, this file says ${s.value}; imported scores are not replaced (import into another run, or delete the run first)`);
    }
  }
}
