import { and, eq } from 'drizzle-orm';
import { DEFAULT_SEED } from '../../analysis/calibration/index.ts';
import { orderSensitivity, type OrderSensitivity, type ShuffledGrade } from '../../analysis/calibration/order-sensitivity.ts';
import type { Database } from '../../db/client.ts';
import { judges } from '../../db/schema.ts';
import { requireCalibrationJudge } from './calibration-labels.ts';
import { isNewestBySlug } from './newest-grade.ts';
import { findRun } from './run-ref.ts';

/**
 * The order sensitivity of a shuffled panel over a stored run (`assay calibrate --run R --judge PANEL`,
 * docs/panels.md#order-sensitivity): read from the panel grades' stored reports (meta.panel.members, one
 * row per sample with its completeness), the newest grade per answer. Only grades whose report records
 * item orders (`itemOrders`, i.e. made with `shuffle: true`) count: without shuffle every sample saw the
 * same order, so their spread says nothing about the order.
 */

export interface OrderSensitivityQuery {
  run: string;
  /** The panel's id (judges slug). */
  judge: string;
  /** Bootstrap seed; default the calibration's DEFAULT_SEED, so `assay calibrate --seed S` moves every interval together. */
  seed?: number;
  resamples?: number;
}

/**
 * Null when the judge has no shuffled panel grade in the run (a plain judge, or a panel without
 * `shuffle: true`, or a judge of judges/ that has not graded). An unknown run, or a judge that names nothing, is not found.
 */
export async function loadOrderSensitivity(database: Database, q: OrderSensitivityQuery): Promise<OrderSensitivity | null> {
  const run = await findRun(database, q.run);
  // A judge of judges/ that has not graded yet has no panel grade: null, as for any judge without one.
  await requireCalibrationJudge(database, q.judge);
  const panels = await database.db.select({ id: judges.id }).from(judges).where(and(eq(judges.slug, q.judge), eq(judges.provider, 'panel'))).limit(1);
  if (panels.length === 0) return null;
  const r = await database.execute(
    // The newest grade per answer by the panel id (newest-grade.ts: several configurations or rubric
    // versions may have graded it), then only those that recorded shuffled item orders.
    `select coalesce(json_agg(json_build_object('answer', a.external_id, 'members', g.meta->'panel'->'members') order by a.id), '[]')::text as j
       from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id
      where a.run_id = $1 and j.slug = $2 and j.provider = 'panel' and ${isNewestBySlug()}
        and jsonb_typeof(g.meta->'panel'->'itemOrders') = 'array' and jsonb_typeof(g.meta->'panel'->'members') = 'array'`,
    [run.id, q.judge],
  );
  const grades = JSON.parse(String(r.rows[0]!.j)) as ShuffledGrade[];
  if (grades.length === 0) return null;
  return orderSensitivity(grades, { seed: q.seed ?? DEFAULT_SEED, ...(q.resamples !== undefined ? { resamples: q.resamples } : {}) });
}
