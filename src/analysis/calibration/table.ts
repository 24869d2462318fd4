import { badInput } from '../../domain/errors.ts';
import { normaliseLabel, type LabelRow, type LabelScale, type NormalLabel } from '../../domain/labels.ts';
import type { LabelTable, Unit } from './types.ts';

/** The unit a row labels: (answer, item); NUL cannot occur in ids read from JSON or CSV text. */
export const unitKey = (answer: string, item: string | null | undefined): string => `${answer}\u0000${item ?? ''}`;

const lineOf = (row: LabelRow, index: number): string => (row.line !== undefined ? `line ${row.line}` : `row ${index + 1}`);

/**
 * Indexes label rows by rater and unit, normalising every label on the scale. Every inconsistency a
 * calibration would silently average over is an error instead: a rater labelling a unit twice, a rater
 * who is human on one line and a judge on another, a unit attributed to two models.
 */
export function buildLabelTable(rows: readonly LabelRow[], scale: LabelScale, source = 'labels'): LabelTable {
  if (rows.length === 0) throw badInput(`${source}: no label rows`);
  const units = new Map<string, Unit>();
  const modelAt = new Map<string, string>();
  const rubricAt = new Map<string, { rubric: string; at: string }>();
  const kinds = new Map<string, { kind: LabelRow['kind']; at: string }>();
  const labels = new Map<string, Map<string, NormalLabel>>();
  const firstAt = new Map<string, string>();

  rows.forEach((row, i) => {
    const at = lineOf(row, i);
    const key = unitKey(row.answer, row.item);
    const normal = normaliseLabel(scale, row.label, `${source}: ${at}`);

    const known = kinds.get(row.rater);
    if (known && known.kind !== row.kind) {
      throw badInput(`${source}: ${at}: rater '${row.rater}' is kind '${row.kind}' here but '${known.kind}' at ${known.at}`);
    }
    if (!known) kinds.set(row.rater, { kind: row.kind, at });

    const dupKey = `${row.rater}\u0000${key}`;
    const first = firstAt.get(dupKey);
    const unitName = `answer '${row.answer}'${row.item !== undefined ? ` item '${row.item}'` : ''}`;
    if (first) throw badInput(`${source}: ${at}: rater '${row.rater}' labels ${unitName} twice (first at ${first})`);
    firstAt.set(dupKey, at);

    let unit = units.get(key);
    if (!unit) {
      unit = { key, answer: row.answer, rubric: null, item: row.item ?? null, model: null };
      units.set(key, unit);
    }
    if (row.model !== undefined) {
      const prev = modelAt.get(row.answer);
      if (prev !== undefined && prev !== row.model) {
        throw badInput(`${source}: ${at}: answer '${row.answer}' is attributed to model '${row.model}' here but '${prev}' elsewhere`);
      }
      modelAt.set(row.answer, row.model);
    }
    // An answer is graded against one rubric: its items are that rubric's (the per-item table's key).
    if (row.rubric !== undefined) {
      const prev = rubricAt.get(row.answer);
      if (prev !== undefined && prev.rubric !== row.rubric) {
        throw badInput(`${source}: ${at}: answer '${row.answer}' is of rubric '${row.rubric}' here but '${prev.rubric}' elsewhere`);
      }
      if (!prev) rubricAt.set(row.answer, { rubric: row.rubric, at });
    }

    let mine = labels.get(row.rater);
    if (!mine) labels.set(row.rater, (mine = new Map()));
    mine.set(key, normal);
  });

  for (const u of units.values()) {
    u.model = modelAt.get(u.answer) ?? null;
    u.rubric = rubricAt.get(u.answer)?.rubric ?? null;
  }
  const byKind = (k: LabelRow['kind']) => [...kinds].filter(([, v]) => v.kind === k).map(([r]) => r).sort();
  const humans = byKind('human');
  if (humans.length === 0) throw badInput(`${source}: no human rater (every row has kind 'judge'); calibration needs human labels`);
  return { scale, units: [...units.values()], humans, judges: byKind('judge'), labels };
}
