import { readDecimal } from '../../domain/limit-values.ts';
import type { ForeignScore, Skipped } from './types.ts';

/**
 * A tool's score value as a share in [0, 1], or why it cannot be one. Inspect's value_to_float defaults:
 * "C" correct 1, "I" incorrect 0, "P" partial 0.5, "N" no answer 0; booleans and yes/no/true/false 1/0.
 * A number outside [0, 1] is refused rather than rescaled: assay cannot know the tool's range.
 */
const WORDS: ReadonlyMap<string, number> = new Map([
  ['C', 1], ['I', 0], ['P', 0.5], ['N', 0],
  ['yes', 1], ['no', 0], ['true', 1], ['false', 0], ['pass', 1], ['fail', 0],
]);

export function shareOf(raw: unknown): { value: number } | { problem: string; offScale?: number } {
  if (typeof raw === 'boolean') return { value: raw ? 1 : 0 };
  if (typeof raw === 'string') {
    const w = WORDS.get(raw.trim()) ?? WORDS.get(raw.trim().toLowerCase());
    if (w !== undefined) return { value: w };
    const n = readDecimal(raw.trim());
    if (typeof n !== 'number') return { problem: `value ${JSON.stringify(raw)} is not a score (expected a number in [0, 1], C/I/P/N, or true/false)` };
    raw = n;
  }
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return { problem: `value ${raw} is not finite` };
    if (raw < 0 || raw > 1) return { problem: `value ${raw} is outside [0, 1] (assay keeps scores as shares; rescale it first)`, offScale: raw };
    return { value: raw };
  }
  return { problem: `value ${JSON.stringify(raw)?.slice(0, 80)} is not a scalar score` };
}

/** A score, or a skipped entry naming the scorer and the problem. */
export function foreignScore(scorer: string, raw: unknown, explanation: unknown): { score: ForeignScore } | { problem: string; offScale?: number } {
  const s = shareOf(raw);
  if ('problem' in s) return { problem: `score '${scorer}': ${s.problem}`, ...(s.offScale !== undefined ? { offScale: s.offScale } : {}) };
  const score: ForeignScore = { scorer, value: s.value, raw: raw as string | number | boolean };
  if (typeof explanation === 'string' && explanation !== '') score.explanation = explanation.slice(0, 2000);
  return { score };
}

/**
 * The scores of one file, scorer by scorer. A value outside [0, 1] says its scorer is not on a [0, 1]
 * scale (a 0-10 rating, ROUGE in percent), so that scorer's in-range values are no shares either: a 1
 * there is a tenth, not full marks. Storing them as shares while skipping the 7 mis-scored the answers
 * (exit 0); every value of such a scorer is skipped, each with the value that gave the scale away.
 */
export function scoreSheet() {
  const offScale = new Map<string, { where: string; value: number }>();
  const given = new Map<ForeignScore[], string>();
  return {
    /** One score of a record: onto `scores`, or a skipped entry naming why not. */
    add(where: string, scores: ForeignScore[], skipped: Skipped[], scorer: string, raw: unknown, explanation: unknown): void {
      const r = foreignScore(scorer, raw, explanation);
      if ('score' in r) {
        scores.push(r.score);
        given.set(scores, where);
        return;
      }
      skipped.push({ where, reason: `${r.problem}; the answer is imported without it` });
      if (r.offScale !== undefined && !offScale.has(scorer)) offScale.set(scorer, { where, value: r.offScale });
    },
    /** Takes the values of off-scale scorers back out of the rows (in file order), reporting each. */
    finish(skipped: Skipped[]): void {
      if (offScale.size === 0) return;
      for (const [scores, where] of given) {
        for (let i = 0; i < scores.length; ) {
          const s = scores[i]!;
          const first = offScale.get(s.scorer);
          if (!first) {
            i++;
            continue;
          }
          scores.splice(i, 1);
          skipped.push({ where, reason: `score '${s.scorer}': value ${String(s.raw)} is not read as a share: the same scorer gives ${first.value} at ${first.where}, outside [0, 1], so its scale is not [0, 1]; the answer is imported without it` });
        }
      }
    },
  };
}
