import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Queryable } from '../db/client.ts';
import { assemblyScores } from '../db/schema.ts';
import type { TaskKind } from '../domain/answers.ts';
import { locatedError, parseJsonl, parseLocated, type ImportFile, type Located } from './import-parse.ts';

/**
 * assembly_scores.jsonl of a run export (`assay import export`): the scores are the user's numbers and are
 * stored as exported. Scoring the answers again with today's scorer gave an export made with an older one
 * (or a foreign score kept there, or a run imported with --no-score) other numbers without a word. A score
 * that differs from the one the database holds for the answer is refused, as a grade is: never replaced.
 * To score with today's scorer, re-score the stored answers after the import.
 */

const share = z.number().min(0).max(1);
/** proximity: (E − d̄)/(E − 1) is below 0 when worse than random (design §2.2), so it has no lower bound. */
const ScoreLine = z.strictObject({
  answer: z.string().min(1),
  status: z.enum(['valid', 'repaired', 'invalid']),
  problems: z.array(z.string()),
  direct: share,
  exact_match: share,
  neighbour: share.nullable(),
  adjacency: share.nullable(),
  proximity: z.number().max(1).nullable(),
  shape_compatibility: share.nullable(),
  corner: share.nullable(),
  edge: share.nullable(),
  interior: share.nullable(),
});
type ScoreLine = z.output<typeof ScoreLine>;

export interface ExportAssemblyScore {
  loc: Located;
  s: ScoreLine;
}

export function parseExportAssemblyScores(file: ImportFile): ExportAssemblyScore[] {
  const seen = new Map<string, number | null>();
  return parseJsonl(file).map((loc) => {
    const s = parseLocated(ScoreLine, loc);
    if (seen.has(s.answer)) throw locatedError(loc, ['answer'], `a second score of '${s.answer}' (first on line ${seen.get(s.answer)})`);
    seen.set(s.answer, loc.line);
    return { loc, s };
  });
}

const valuesOf = (s: ScoreLine) => ({
  status: s.status,
  problems: s.problems,
  direct: s.direct,
  exactMatch: s.exact_match,
  neighbour: s.neighbour,
  adjacency: s.adjacency,
  proximity: s.proximity,
  shapeCompatibility: s.shape_compatibility,
  byPosition: { corner: s.corner, edge: s.edge, interior: s.interior },
});

const COMPARED = ['status', 'direct', 'exactMatch', 'neighbour', 'adjacency', 'proximity', 'shapeCompatibility'] as const;
const NAMES: Record<(typeof COMPARED)[number], string> = { status: 'status', direct: 'direct', exactMatch: 'exact_match', neighbour: 'neighbour', adjacency: 'adjacency', proximity: 'proximity', shapeCompatibility: 'shape_compatibility' };
const canonical = (v: unknown) => JSON.stringify(v, (_, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

/** Stores them in the caller's transaction; answers: external id → the answer's id and task in the target. */
export async function storeExportAssemblyScores(
  tx: Queryable,
  lines: readonly ExportAssemblyScore[],
  answers: ReadonlyMap<string, { id: number; task: TaskKind }>,
): Promise<{ stored: number; unchanged: number }> {
  let stored = 0;
  for (const { loc, s } of lines) {
    const answer = answers.get(s.answer);
    if (!answer) throw locatedError(loc, ['answer'], `'${s.answer}' is not an answer in answers.jsonl`);
    if (answer.task !== 'assemble' && answer.task !== 'describe-then-solve') throw locatedError(loc, ['answer'], `'${s.answer}' is a '${answer.task}' answer, which has no assembly score`);
    const values = valuesOf(s);
    const written = await tx.insert(assemblyScores).values({ answerId: answer.id, ...values }).onConflictDoNothing().returning({ id: assemblyScores.id });
    if (written.length) {
      stored++;
      continue;
    }
    const [before] = await tx.select().from(assemblyScores).where(eq(assemblyScores.answerId, answer.id));
    if (!before) continue;
    const differs: string[] = COMPARED.filter((k) => before[k] !== values[k]).map((k) => `${NAMES[k]} differs: stored ${before[k]}, this file ${values[k]}`);
    if (canonical(before.byPosition) !== canonical(values.byPosition)) differs.push('corner/edge/interior differ');
    if (canonical(before.problems) !== canonical(values.problems)) differs.push('problems differ');
    if (differs.length) {
      throw locatedError(loc, [], `the database holds another assembly score of answer '${s.answer}' (${differs.join('; ')}); assembly scores are not replaced by an import`);
    }
  }
  return { stored, unchanged: lines.length - stored };
}
