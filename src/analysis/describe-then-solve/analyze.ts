import { badInput } from '../../domain/errors.ts';
import { pearson, spearman } from '../../stats/correlation.ts';
import { wilson } from '../../stats/wilson.ts';
import { groupBy } from '../group.ts';
import type { DtsGroup, DtsOptions, DtsReport, DtsRow, Proportion } from './types.ts';

/** The identity is exact on counts; only floating-point rounding may separate the two sides. */
const IDENTITY_TOLERANCE = 1e-9;

/**
 * "≥ τ" up to floating-point rounding: a score is a ratio computed in a few steps (F1 from completeness and
 * correctness), so an F1 of exactly 3/4 is 0.7499999999999999, one bit under τ = 0.75. Scores live in
 * [-1, 1]; rounding moves them by ~1e-16, and 1e-12 leaves every score a person could mean below τ below it.
 */
const TAU_TOLERANCE = 1e-12;

/** Rows without a slice sit in this group when other rows have one, so the slices still cover every row. */
export const UNSLICED = '(none)';

interface Outcome {
  p: boolean;
  a: boolean;
  /** Raw scores (booleans as 0/1), for the correlation. */
  ps: number;
  as: number;
  numeric: boolean;
}

function proportion(successes: number, trials: number, what: string): Proportion {
  const w = wilson(successes, trials, 0.95);
  const out: Proportion = { successes, trials, estimate: w.estimate, ci: w.ci };
  if (trials === 0) out.reason = `no items with ${what}`;
  else if (w.reason) out.reason = w.reason;
  return out;
}

function toOk(v: boolean | number, tau: number | undefined, field: string, where: string): boolean {
  if (typeof v === 'boolean') return v;
  if (tau === undefined) {
    throw badInput(`${where}: field '${field}' is a number (${v}) but no threshold is set (use --threshold τ; a score ≥ τ counts as ok)`);
  }
  return v >= tau - TAU_TOLERANCE;
}

/** n, P(P✓), P(A✓|P✓), P(A✓|P✗), P(A✓) with Wilson intervals and the decomposition check. */
export function summarise(outcomes: readonly Outcome[]): DtsGroup {
  const n = outcomes.length;
  const pOk = outcomes.filter((o) => o.p);
  const pBad = outcomes.filter((o) => !o.p);
  const aAll = outcomes.filter((o) => o.a).length;
  const aGivenP = pOk.filter((o) => o.a).length;
  const aGivenNotP = pBad.filter((o) => o.a).length;
  const group: DtsGroup = {
    n,
    perception: proportion(pOk.length, n, 'rows'),
    answerGivenPerception: proportion(aGivenP, pOk.length, 'a correct perception'),
    answerGivenNoPerception: proportion(aGivenNotP, pBad.length, 'an incorrect perception'),
    answer: proportion(aAll, n, 'rows'),
    identity: { lhs: null, rhs: null, residual: null, holds: null },
  };
  if (n === 0) {
    group.identity.reason = 'no rows';
  } else {
    // A conditional with an empty denominator is null, but its weight P(P✓) or P(P✗) is then 0.
    const pp = pOk.length / n;
    const term = (weight: number, cond: number | null) => (weight === 0 ? 0 : weight * cond!);
    const lhs = aAll / n;
    const rhs = term(pp, group.answerGivenPerception.estimate) + term(1 - pp, group.answerGivenNoPerception.estimate);
    const residual = lhs - rhs;
    group.identity = { lhs, rhs, residual, holds: Math.abs(residual) <= IDENTITY_TOLERANCE };
  }
  if (outcomes.some((o) => o.numeric)) {
    const x = outcomes.map((o) => o.ps);
    const y = outcomes.map((o) => o.as);
    const pick = ({ r, p, reason }: { r: number | null; p: number | null; reason?: string }) => (reason ? { r, p, reason } : { r, p });
    group.correlation = { pearson: pick(pearson(x, y)), spearman: pick(spearman(x, y)) };
  }
  return group;
}

/**
 * Describe-then-solve (design §2.4): did a model answer right because it saw right? Per item,
 * perception ok (a binary label, or a score ≥ τ) and answer ok; reported overall, per model (and per
 * slice within it) and per slice across models.
 */
export function describeThenSolve(rows: readonly DtsRow[], opts: DtsOptions = {}): DtsReport {
  const source = opts.source ?? 'rows';
  if (rows.length === 0) throw badInput(`${source}: no rows`);
  const tp = opts.perceptionThreshold ?? opts.threshold;
  const ta = opts.answerThreshold ?? opts.threshold;
  const seen = new Map<string, string>();
  const tagged = rows.map((r, i) => {
    const at = r.line !== undefined ? `line ${r.line}` : `row ${i + 1}`;
    const where = `${source}: ${at}`;
    const key = `${r.model}\u0000${r.item}`;
    const first = seen.get(key);
    if (first) throw badInput(`${where}: model '${r.model}' item '${r.item}' appears twice (first at ${first})`);
    seen.set(key, at);
    const outcome: Outcome = {
      p: toOk(r.perception, tp, 'perception', where),
      a: toOk(r.answer, ta, 'answer', where),
      ps: Number(r.perception),
      as: Number(r.answer),
      numeric: typeof r.perception === 'number' || typeof r.answer === 'number',
    };
    return { row: r, outcome };
  });
  const outcomesOf = (xs: typeof tagged) => xs.map((x) => x.outcome);
  const anySlice = rows.some((r) => r.slice !== undefined);
  const sliceOf = (x: (typeof tagged)[number]) => x.row.slice ?? (anySlice ? UNSLICED : undefined);
  // fromEntries: own properties even for a model or slice named "__proto__".
  const slices = (xs: typeof tagged) => Object.fromEntries(groupBy(xs, sliceOf).map(([s, ys]) => [s, summarise(outcomesOf(ys))]));
  const byModel: DtsReport['byModel'] = Object.fromEntries(
    groupBy(tagged, (x) => x.row.model).map(([model, xs]) => [model, { ...summarise(outcomesOf(xs)), bySlice: slices(xs) }]),
  );
  const bySlice: DtsReport['bySlice'] = slices(tagged);
  return {
    thresholds: { perception: tp ?? null, answer: ta ?? null },
    overall: summarise(outcomesOf(tagged)),
    byModel,
    bySlice,
  };
}
