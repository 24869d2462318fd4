import { DEFAULT_RELIABILITY_BINS, reliabilityDiagram, type ReliabilityBin } from '../../analysis/calibration/reliability.ts';
import { type ConfidentGrade, type ReliabilityLeftOut, reliabilityPoints, type ReliabilityPointRow } from '../../analysis/calibration/reliability-points.ts';
import type { Database } from '../../db/client.ts';
import { calibrationLabelSet, requireCalibrationJudge } from './calibration-labels.ts';
import { exampleAnswers } from './example-exclusion.ts';
import { isNewestBySlug } from './newest-grade.ts';
import { keptJudgeItems, versionNotes } from './label-versions.ts';
import { findRun } from './run-ref.ts';
import { notOfErrorAnswer } from '../report-facts.ts';
import { errorAnswersNote } from '../error-answers.ts';

/**
 * A judge's reliability diagram over a stored run (`assay calibrate --run R --judge J`, the calibration
 * page; docs/grades.md#confidence): the judge's newest ok grade per answer, each item verdict that carries
 * a confidence (grades.items[].confidence: log-probability or a panel's vote share), against the human
 * majority verdict of that answer's item from the run's stored human labels.
 */

export interface ReliabilityQuery {
  run: string;
  /** The judge's id (judges slug); a panel is read as the panel (its vote and its confidence). */
  judge: string;
  /** Equal-width confidence bins over [0, 1]; default 10. */
  bins?: number;
}

export interface ReliabilityReport {
  run: string;
  judge: string;
  /** One per (answer, item) with a confidence and a human majority, in answer then item order. */
  points: ReliabilityPointRow[];
  /** Graded items of the judge's ok grades that are not points, by reason; `examples`: items of answers the judge was shown as examples (example-exclusion.ts). */
  leftOut: ReliabilityLeftOut & { examples: number };
  diagram: { bins: ReliabilityBin[]; n: number; ece: number | null };
  /** What was left out or kept unchecked for its rubric version (label-versions.ts), and the error answers left out, as the calibration report says it. */
  notes: string[];
}

/** Unknown run, or a judge that names nothing (no judges row, no file in judges/), is not found; bad bins are bad input (before any read). */
export async function loadReliability(database: Database, q: ReliabilityQuery): Promise<ReliabilityReport> {
  const bins = q.bins ?? DEFAULT_RELIABILITY_BINS;
  reliabilityDiagram([], bins); // validates bins
  const run = await findRun(database, q.run);
  // A judge of judges/ that has not graded yet has no grade: no point, as for any judge without one.
  await requireCalibrationJudge(database, q.judge);
  // No grade of an error answer is a verdict of a model's answer (error-answers.ts): its people's labels are
  // out of the label set too, so read it would be counted as unlabelled; left out, and said in the notes.
  const r = await database.execute(
    `select coalesce(json_agg(json_build_object('answer', a.external_id, 'items', coalesce(g.items, '[]'::jsonb)) order by a.id), '[]')::text as j
       from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id
      where a.run_id = $1 and j.slug = $2 and g.status = 'ok' and ${isNewestBySlug()} ${notOfErrorAnswer('g')}`,
    [run.id, q.judge],
  );
  const graded = JSON.parse(String(r.rows[0]!.j)) as ConfidentGrade[];
  // An anchored judge's example answers measure copying, not calibration: left out, as calibration does.
  const shown = (await exampleAnswers(database, { key: 'externalId', run: run.name, judges: [q.judge] })).get(q.judge) ?? new Set<string>();
  const grades = graded.filter((g) => !shown.has(g.answer));
  const examples = graded.filter((g) => shown.has(g.answer)).reduce((n, g) => n + g.items.length, 0);
  // The run's stored human labels, through the calibration's one label builder, settled with the judge's
  // grades: a verdict and a label of an item pair only where both were given against the same wording.
  const set = await calibrationLabelSet(database, { key: 'externalId', run: run.name, judges: [q.judge], scale: 'verdict', humanLabelledOnly: true });
  const humans = set.rows.flatMap((l) => (l.kind === 'human' && l.item !== undefined ? [{ answer: l.answer, item: l.item, label: String(l.label) }] : []));
  // A verdict left out for its version is no point (counted in the notes, not as unlabelled).
  const kept = keptJudgeItems(set.rows);
  const labelled = new Set(humans.map((h) => h.answer));
  const settled = grades.map((g) => (labelled.has(g.answer) ? { ...g, items: g.items.filter((it) => kept(q.judge, g.answer, it.id)) } : g));
  const { points, leftOut } = reliabilityPoints(settled, humans);
  return { run: run.name, judge: q.judge, points, leftOut: { ...leftOut, examples }, diagram: reliabilityDiagram(points, bins), notes: [...versionNotes(set.versions), ...errorAnswersNote(set.errorAnswers)] };
}
