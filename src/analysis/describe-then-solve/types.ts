export interface DtsRow {
  model: string;
  item: string;
  slice?: string;
  perception: boolean | number;
  answer: boolean | number;
  /** Source line, for error messages. */
  line?: number;
}

export interface DtsOptions {
  /** τ for both scores when they are numbers (≥ τ counts as ok). */
  threshold?: number;
  perceptionThreshold?: number;
  answerThreshold?: number;
  /** Names the input in error messages. */
  source?: string;
}

/** A proportion with its 95% Wilson interval; null (with reason) when the denominator is 0. */
export interface Proportion {
  successes: number;
  trials: number;
  estimate: number | null;
  ci: [number, number] | null;
  reason?: string;
}

export interface DtsGroup {
  n: number;
  /** P(P✓): the description was good enough. */
  perception: Proportion;
  /** P(A✓ | P✓). */
  answerGivenPerception: Proportion;
  /** P(A✓ | P✗). */
  answerGivenNoPerception: Proportion;
  /** End-to-end P(A✓). */
  answer: Proportion;
  /** P(A✓) = P(P✓)P(A✓|P✓) + P(P✗)P(A✓|P✗); residual = lhs − rhs (0 up to rounding). */
  identity: { lhs: number | null; rhs: number | null; residual: number | null; holds: boolean | null; reason?: string };
  /** Raw score correlation, only when a score is numeric (booleans count as 0/1). */
  correlation?: {
    pearson: { r: number | null; p: number | null; reason?: string };
    spearman: { r: number | null; p: number | null; reason?: string };
  };
}

export interface DtsReport {
  thresholds: { perception: number | null; answer: number | null };
  overall: DtsGroup;
  byModel: Record<string, DtsGroup & { bySlice: Record<string, DtsGroup> }>;
  bySlice: Record<string, DtsGroup>;
}
