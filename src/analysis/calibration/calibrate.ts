import { badInput } from '../../domain/errors.ts';
import { isLabelScale, LABEL_SCALES, type LabelRow } from '../../domain/labels.ts';
import { compareJudge, itemDisagreements } from './breakdown.ts';
import { groupBy } from '../group.ts';
import { leaveOneAnnotatorOut, raterAlpha } from './ceiling.ts';
import { comparePair } from './compare.ts';
import { humanConsensus } from './consensus.ts';
import { rollUpAnswers } from './rollup.ts';
import { resolveWeights } from './weights.ts';
import { buildLabelTable } from './table.ts';
import { trustReading } from './trust.ts';
import type { CalibrateOptions, CalibrationReport, JudgeReport, LabelTable, PairStats } from './types.ts';

export const DEFAULT_SEED = 1;

/** Every unordered pair of raters, "a ~ b". */
function pairwise(table: LabelTable, raters: string[]): Record<string, PairStats> {
  return Object.fromEntries(
    raters.flatMap((a, i) => raters.slice(i + 1).map((b) => [`${a} ~ ${b}`, comparePair(table.labels.get(a)!, table.labels.get(b)!, table.scale)])),
  );
}

/**
 * How far a judge can be trusted, measured against human labels of the same units (design §3
 * `assay calibrate`): per judge against each human and against the human majority, broken down per
 * graded model and per rubric item, rolled up to answer scores, next to the human–human ceiling.
 */
export function calibrate(rows: readonly LabelRow[], opts: CalibrateOptions): CalibrationReport {
  const source = opts.source ?? 'labels';
  if (!isLabelScale(opts.scale)) throw badInput(`unknown scale '${String(opts.scale)}' (expected ${LABEL_SCALES.join('|')})`);
  const table = buildLabelTable(rows, opts.scale, source);
  const seed = opts.seed ?? DEFAULT_SEED;

  let judges = table.judges;
  if (opts.judge !== undefined) {
    if (table.humans.includes(opts.judge)) throw badInput(`${source}: rater '${opts.judge}' is a human rater, not a judge`);
    if (!table.judges.includes(opts.judge)) {
      const known = table.judges.length ? table.judges.join(', ') : 'none';
      throw badInput(`${source}: no labels from judge '${opts.judge}' (judges present: ${known})`);
    }
    judges = [opts.judge];
  }
  // Each unit weighted by its own rubric's item, or bad input before any figure (weights.ts).
  const weights = resolveWeights(table, opts.weights);

  const consensus = humanConsensus(table);
  const ceiling = raterAlpha(table, table.humans, seed);
  const leaveOneOut = leaveOneAnnotatorOut(table);
  const judgeReports = judges.map((judge): JudgeReport => {
    const byModel = Object.fromEntries(
      groupBy(table.units, (u) => u.model).map(([model, units]) => [model, compareJudge(table, judge, consensus.labels, units)]),
    );
    const overall = compareJudge(table, judge, consensus.labels, table.units);
    return {
      rater: judge,
      units: table.labels.get(judge)!.size,
      trust: trustReading(table.scale, overall.vsMajority, ceiling, leaveOneOut),
      ...overall,
      byModel,
      byItem: itemDisagreements(table, judge, consensus.labels),
      answers: rollUpAnswers(table, judge, consensus.labels, weights?.byUnit),
    };
  });

  const notes: string[] = [];
  if (table.judges.length === 0) notes.push('no judge labels: only the human ceiling is reported');
  if (consensus.tied.length) notes.push(`${consensus.tied.length} unit(s) have no human majority (tie) and are excluded from every "vs majority" figure`);
  if (consensus.singleRater) notes.push(`${consensus.singleRater} unit(s) were labelled by one human only; that label is their reference`);
  if (weights) notes.push(...weights.notes);

  const answers = new Set(table.units.map((u) => u.answer));
  // Items of distinct rubrics are distinct items, though they share an id (as the per-item table keys them).
  const items = new Set(table.units.flatMap((u) => (u.item === null ? [] : [JSON.stringify([u.rubric, u.item])])));
  const models = [...new Set(table.units.flatMap((u) => (u.model === null ? [] : [u.model])))].sort();
  return {
    scale: table.scale,
    units: table.units.length,
    answers: answers.size,
    items: items.size,
    models,
    humans: table.humans,
    judges,
    consensus: consensus.description,
    majority: {
      units: consensus.labels.size,
      ties: consensus.tied.length,
      tied: consensus.tied.map((u) => ({ answer: u.answer, item: u.item })),
      singleRater: consensus.singleRater,
    },
    humanCeiling: { alpha: ceiling, pairs: pairwise(table, table.humans), leaveOneOut },
    judgeReports,
    judgeJudge:
      table.judges.length >= 2
        ? { alpha: raterAlpha(table, table.judges, seed), pairs: pairwise(table, table.judges) }
        : null,
    notes,
  };
}
