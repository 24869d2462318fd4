import { badInput } from '../../domain/errors.ts';
import type { LabelTable, RubricWeights, Unit } from './types.ts';

/**
 * Each item unit's weight in the answer roll-up, by unit key, taken from its own rubric's item only.
 * Rubrics share item ids (`sky` is an item of ~25 bundled rubrics, with different weights), so a weight
 * found by the id alone can be another rubric's: a silently wrong roll-up. What cannot be told apart is
 * refused instead (bad input):
 * - flat weights (item id → weight, as POST /api/calibrate's `weights`) are one rubric's: refused when the
 *   rows name more than one rubric;
 * - per-rubric weights (`--rubric` once per rubric): an answer is weighted by the rubric its rows name;
 *   one naming none, by the one rubric given (with several given it is unknown which: refused); one naming
 *   a rubric not given: refused;
 * - an item its rubric does not have, or a weight not > 0: refused.
 * The notes say what was assumed (answers naming no rubric) or given for nothing (a rubric of no answer).
 */
export interface ResolvedWeights {
  byUnit: ReadonlyMap<string, number>;
  notes: string[];
}

type Weights = Record<string, number> | readonly RubricWeights[];

const isFlat = (w: Weights): w is Record<string, number> => !Array.isArray(w);

function weightOf(items: Record<string, number>, u: Unit, rubric: string | null): number {
  const w = Object.hasOwn(items, u.item!) ? items[u.item!] : undefined;
  const of = rubric === null ? 'the rubric' : `rubric '${rubric}'`;
  if (w === undefined) throw badInput(`weights: no weight for item '${u.item}' of answer '${u.answer}': it is not an item of ${of}`);
  if (!(typeof w === 'number' && Number.isFinite(w) && w > 0)) throw badInput(`weights: item '${u.item}' of ${of} must have a weight > 0, got ${w}`);
  return w;
}

/** The weight of every item unit of the table (whole-answer units weigh 1 and are not listed); undefined: unweighted. */
export function resolveWeights(table: LabelTable, weights: Weights | undefined): ResolvedWeights | undefined {
  if (weights === undefined) return undefined;
  const itemUnits = table.units.filter((u) => u.item !== null);
  const named = [...new Set(itemUnits.flatMap((u) => (u.rubric === null ? [] : [u.rubric])))].sort();
  const byUnit = new Map<string, number>();
  const notes: string[] = [];
  if (isFlat(weights)) {
    if (named.length > 1) {
      throw badInput(`weights: one set of item weights (by item id) for labels of ${named.length} rubrics (${named.join(', ')}): rubrics share item ids, so give each rubric's weights (assay calibrate: --rubric once per rubric)`);
    }
    for (const u of itemUnits) byUnit.set(u.key, weightOf(weights, u, named[0] ?? null));
    return { byUnit, notes };
  }
  const given = new Map<string, Record<string, number>>();
  for (const r of weights) {
    if (given.has(r.rubric)) throw badInput(`weights: rubric '${r.rubric}' is given twice (give each rubric once)`);
    given.set(r.rubric, r.items);
  }
  const ids = [...given.keys()];
  const unnamed = new Set<string>();
  for (const u of itemUnits) {
    let rubric = u.rubric;
    if (rubric === null) {
      if (ids.length !== 1) throw badInput(`weights: answer '${u.answer}' names no rubric, and ${ids.length} rubrics are given (${ids.join(', ')}): say each answer's rubric in the labels' rubric field`);
      rubric = ids[0]!;
      unnamed.add(u.answer);
    } else if (!given.has(rubric)) {
      throw badInput(`weights: answer '${u.answer}' is of rubric '${rubric}', but --rubric gives ${ids.join(', ')} only: its items would be weighted by another rubric's (give --rubric for each rubric of the labels)`);
    }
    byUnit.set(u.key, weightOf(given.get(rubric)!, u, rubric));
  }
  if (unnamed.size) notes.push(`${unnamed.size} answer(s) name no rubric: their items are weighted as rubric '${ids[0]}' (the one --rubric given)`);
  const used = new Set([...named, ...(unnamed.size ? [ids[0]!] : [])]);
  for (const id of ids) if (!used.has(id)) notes.push(`rubric '${id}' (--rubric) is the rubric of no labelled answer: its weights weigh nothing`);
  return { byUnit, notes };
}
