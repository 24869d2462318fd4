import { inArray } from 'drizzle-orm';
import type { Database } from '../../../src/db/client.ts';
import { answers, grades, runs } from '../../../src/db/schema.ts';
import { storeRubric } from '../../../src/services/rubrics.ts';
import { farmyard } from '../../judges/harness.ts';

/**
 * A run as the import format allows it: descriptions beside assemblies (which carry their puzzle's
 * rubric), a multiple-choice answer, a description without text, one without a rubric, and one whose
 * call ended in error but kept text (Inspect keeps a sample's last output when it errors mid-agent). Only
 * the describe and describe-then-solve answers with text, a rubric and a status other than error are
 * graded by a judge.
 */
export const MIXED_EXPECTED = { total: 4, skipped: { task: 3, answerError: 1, noText: 1, noRubric: 1 } };

export async function seedMixedRun(database: Database, name: string): Promise<{ runId: number; graded: number[]; notGraded: number[] }> {
  const { rubricId } = await database.db.transaction((tx) => storeRubric(tx, farmyard));
  const [run] = await database.db.insert(runs).values({ name, model: 'model-x' }).returning({ id: runs.id });
  const grid = '1 2 3\n4 5 6';
  const rows = [
    { externalId: 'd1', task: 'describe' as const, rubricId, text: 'A red barn on the left with a brown cow in the doorway.', graded: true },
    { externalId: 'd2', task: 'describe' as const, rubricId, text: 'A farmer drives a green tractor; hens peck near the barn.', graded: true },
    { externalId: 'd3', task: 'describe' as const, rubricId, text: 'Three pink pigs in the mud and two ducks on a pond.', graded: true },
    { externalId: 'dts1', task: 'describe-then-solve' as const, rubricId, text: 'A barn and a tractor.\n\n1 2 3\n4 5 6', graded: true },
    { externalId: 'g1', task: 'assemble' as const, rubricId, text: grid, graded: false },
    { externalId: 'g2', task: 'assemble' as const, rubricId, text: grid, graded: false },
    { externalId: 'c1', task: 'choice' as const, rubricId: null, text: '<answer>B</answer>', graded: false },
    { externalId: 'blank', task: 'describe' as const, rubricId, text: '   ', graded: false },
    { externalId: 'norubric', task: 'describe' as const, rubricId: null, text: 'A barn with no rubric to judge it by.', graded: false },
    { externalId: 'errored', task: 'describe' as const, rubricId, status: 'error' as const, text: 'I will zoom into the left half first: a red barn and', graded: false },
  ];
  const inserted = await database.db
    .insert(answers)
    .values(rows.map(({ graded: _, ...r }) => ({ ...r, runId: run!.id })))
    .returning({ id: answers.id, externalId: answers.externalId });
  const idOf = new Map(inserted.map((r) => [r.externalId, r.id]));
  return {
    runId: run!.id,
    graded: rows.filter((r) => r.graded).map((r) => idOf.get(r.externalId)!),
    notGraded: rows.filter((r) => !r.graded).map((r) => idOf.get(r.externalId)!),
  };
}

/** Answer ids (of `ids`) that have a grade from any judge. */
export async function gradedAmong(database: Database, ids: number[]): Promise<number[]> {
  const r = await database.db.selectDistinct({ id: grades.answerId }).from(grades).where(inArray(grades.answerId, ids));
  return r.map((x) => x.id).sort((a, b) => a - b);
}

