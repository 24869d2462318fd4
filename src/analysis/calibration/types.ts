import type { LabelScale, NormalLabel } from '../../domain/labels.ts';

/** One labelled thing: an answer, or one rubric item of an answer. */
export interface Unit {
  key: string;
  answer: string;
  /** The answer's rubric, when the rows name it: an item id means an item of that rubric only. */
  rubric: string | null;
  item: string | null;
  model: string | null;
}

/** Labels of one rater, by unit key. */
export type RaterLabels = ReadonlyMap<string, NormalLabel>;

export interface LabelTable {
  scale: LabelScale;
  units: Unit[];
  humans: string[];
  judges: string[];
  labels: ReadonlyMap<string, RaterLabels>;
}

export interface KappaStat {
  kappa: number | null;
  se: number | null;
  ci: [number, number] | null;
  reason?: string;
}

export interface CorrelationStat {
  r: number | null;
  p: number | null;
  ci?: [number, number] | null;
  reason?: string;
}

/**
 * Two raters compared over the units both labelled. Categorical scales fill agreement, kappa and
 * confusion (verdict adds weightedKappa on points); the numeric scale fills the correlation fields.
 */
export interface PairStats {
  n: number;
  agreement?: number | null;
  kappa?: KappaStat;
  weightedKappa?: KappaStat;
  confusion?: { categories: (string | number)[]; matrix: number[][] };
  pearson?: CorrelationStat;
  spearman?: CorrelationStat;
  /** Mean of (first − second) values: positive when the first rater (the judge) is more lenient. */
  bias?: number | null;
  mae?: number | null;
  reason?: string;
}

/** A judge compared with each human and with the human consensus, over some set of units. */
export interface Comparison {
  vsHumans: Record<string, PairStats>;
  vsMajority: PairStats;
}

export interface ItemDisagreement extends Comparison {
  /** The item's rubric (null when the rows name none): rubrics share item ids, so a row is one (rubric, item). */
  rubric: string | null;
  item: string;
  /** Units of this item with a human majority that the judge labelled. */
  n: number;
  disagreements: number;
  disagreement: number | null;
  /** The commonest (judge, majority) pair of differing labels, if any. */
  topConfusion: { judge: string | number; majority: string | number; count: number } | null;
}

export interface AnswerRollup {
  /** Answers with at least one unit labelled by the judge and with a human consensus. */
  n: number;
  weighted: boolean;
  pearson: CorrelationStat;
  spearman: CorrelationStat;
  bias: number | null;
  mae: number | null;
  answers: { answer: string; model: string | null; judge: number; human: number; units: number }[];
  reason?: string;
}

/** Is the judge's agreement with the majority within the range of the people's agreement? */
export interface TrustReading {
  statistic: 'weightedKappa' | 'kappa' | 'pearson';
  value: number | null;
  ci: [number, number] | null;
  /** Human–human Krippendorff alpha and its interval: described beside the reading, not the bar. */
  ceiling: number | null;
  ceilingCi: [number, number] | null;
  /** The bar: the median of `humans[].value` (null when none is defined). */
  humanLevel: number | null;
  /** Each annotator's same statistic against the majority of the other annotators. */
  humans: { annotator: string; n: number; value: number | null }[];
  /** The rule in words (trust.ts HUMAN_RANGE_RULE). */
  rule: string;
  withinHumanRange: boolean | null;
  reason?: string;
}

export interface JudgeReport extends Comparison {
  rater: string;
  units: number;
  trust: TrustReading;
  byModel: Record<string, Comparison>;
  /** Rubric items, most disagreement with the human majority first. */
  byItem: ItemDisagreement[];
  answers: AnswerRollup;
}

export interface AlphaStat {
  alpha: number | null;
  level: 'nominal' | 'ordinal' | 'interval' | 'ratio';
  ci: [number, number] | null;
  units: number;
  raters: string[];
  reason?: string;
}

export interface CalibrationReport {
  scale: LabelScale;
  units: number;
  answers: number;
  items: number;
  models: string[];
  humans: string[];
  judges: string[];
  /** How the human reference per unit is formed, in words. */
  consensus: string;
  majority: { units: number; ties: number; tied: { answer: string; item: string | null }[]; singleRater: number };
  /** alpha and pairwise among the humans; leaveOneOut: each human against the majority of the others. */
  humanCeiling: { alpha: AlphaStat; pairs: Record<string, PairStats>; leaveOneOut: Record<string, PairStats> };
  judgeReports: JudgeReport[];
  judgeJudge: { alpha: AlphaStat; pairs: Record<string, PairStats> } | null;
  notes: string[];
}

/** One rubric's item weights (its id, as the rows' `rubric` field names it; item id → weight). */
export interface RubricWeights {
  rubric: string;
  items: Record<string, number>;
}

export interface CalibrateOptions {
  scale: LabelScale;
  judge?: string;
  seed?: number;
  /**
   * Item weights of the answer roll-up: by item id (one rubric's; refused when the rows name several), or
   * per rubric (each answer weighted by the rubric its rows name) — weights.ts.
   */
  weights?: Record<string, number> | readonly RubricWeights[];
  /** Names the label source in error messages (e.g. the file path). */
  source?: string;
}
