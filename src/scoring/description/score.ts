import { badInput } from '../../domain/errors.ts';
import type { Rubric } from '../../domain/rubric.ts';
import { VERDICT_POINTS, type ItemVerdict, type Verdicts } from '../../domain/verdicts.ts';
import { parseMeta, scoreMeta, type MetaScore } from './meta.ts';

/** F1 of completeness and correctness (design §2.1): their harmonic mean, 0 when both are 0. */
export const f1Score = (completeness: number, correctness: number): number =>
  completeness + correctness > 0 ? (2 * completeness * correctness) / (completeness + correctness) : 0;

export type UnverifiablePolicy = 'count' | 'exclude';

export interface DescriptionScore {
  completeness: number;
  correctness: number;
  f1: number;
  points: { earned: number; possible: number };
  claims: { true: number; false: number; unverifiable: number; total: number };
  /** One row per rubric item, in rubric order; `points` = weight × verdict points (earned). */
  items: Array<{ id: string; weight: number; verdict: ItemVerdict; points: number }>;
  meta?: MetaScore;
}

export interface DescriptionOptions {
  unverifiable?: UnverifiablePolicy;
  /** The answer text; with a rubric `truth`, meta is parsed from it and scored. */
  answer?: string;
  /** Names the verdicts in error messages (a file path from the CLI). */
  where?: string;
}

/** Every verdict must name a rubric item, once; unlisted items are `missing` (design §3). */
function verdictById(rubric: Rubric, verdicts: Verdicts, where: string): Map<string, ItemVerdict> {
  const known = new Set(rubric.items.map((it) => it.id));
  const out = new Map<string, ItemVerdict>();
  verdicts.items.forEach((v, i) => {
    if (!known.has(v.id)) {
      throw badInput(`${where}: items[${i}]: unknown rubric item '${v.id}' (rubric '${rubric.id}' has ${[...known].join(', ')})`);
    }
    if (out.has(v.id)) throw badInput(`${where}: items[${i}]: rubric item '${v.id}' has more than one verdict`);
    out.set(v.id, v.verdict);
  });
  return out;
}

export function scoreDescription(rubric: Rubric, verdicts: Verdicts, opts: DescriptionOptions = {}): DescriptionScore {
  const byId = verdictById(rubric, verdicts, opts.where ?? 'verdicts');
  const items = rubric.items.map((it) => {
    const verdict = byId.get(it.id) ?? 'missing';
    return { id: it.id, weight: it.weight, verdict, points: it.weight * VERDICT_POINTS[verdict] };
  });
  const earned = items.reduce((s, it) => s + it.points, 0);
  const possible = items.reduce((s, it) => s + it.weight, 0);
  const completeness = possible > 0 ? earned / possible : 0;

  const claims = { true: 0, false: 0, unverifiable: 0, total: 0 };
  for (const c of verdicts.claims ?? []) {
    claims[c.verdict] += 1;
    claims.total += 1;
  }
  const denominator = claims.true + claims.false + (opts.unverifiable === 'exclude' ? 0 : claims.unverifiable);
  // Design §2.1: no claims (or nothing left to judge) scores 0, not undefined, so an empty answer ranks last.
  const correctness = denominator > 0 ? claims.true / denominator : 0;
  const f1 = f1Score(completeness, correctness);

  const score: DescriptionScore = { completeness, correctness, f1, points: { earned, possible }, claims, items };
  if (opts.answer !== undefined && rubric.truth) score.meta = scoreMeta(parseMeta(opts.answer), rubric.truth);
  return score;
}
