import type { ForeignScore } from './types.ts';

/**
 * A tool's score value as a share in [0, 1], or why it cannot be one. Inspect's value_to_float defaults:
 * "C" correct 1, "I" incorrect 0, "P" partial 0.5, "N" no answer 0; booleans and yes/no/true/false 1/0.
 * A number outside [0, 1] is refused rather than rescaled: assay cannot know the tool's range.
 */
const WORDS: ReadonlyMap<string, number> = new Map([
  ['C', 1], ['I', 0], ['P', 0.5], ['N', 0],
  ['yes', 1], ['no', 0], ['true', 1], ['false', 0], ['pass', 1], ['fail', 0],
]);

export function shareOf(raw: unknown): { value: number } | { problem: string } {
  if (typeof raw === 'boolean') return { value: raw ? 1 : 0 };
  if (typeof raw === 'string') {
    const w = WORDS.get(raw.trim()) ?? WORDS.get(raw.trim().toLowerCase());
    if (w !== undefined) return { value: w };
    const n = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
    if (Number.isNaN(n)) return { problem: `value ${JSON.stringify(raw)} is not a score (expected a number in [0, 1], C/I/P/N, or true/false)` };
    raw = n;
  }
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return { problem: `value ${raw} is not finite` };
    if (raw < 0 || raw > 1) return { problem: `value ${raw} is outside [0, 1] (assay keeps scores as shares; rescale it first)` };
    return { value: raw };
  }
  return { problem: `value ${JSON.stringify(raw)?.slice(0, 80)} is not a scalar score` };
}

/** A score, or a skipped entry naming the scorer and the problem. */
export function foreignScore(scorer: string, raw: unknown, explanation: unknown): { score: ForeignScore } | { problem: string } {
  const s = shareOf(raw);
  if ('problem' in s) return { problem: `score '${scorer}': ${s.problem}` };
  const score: ForeignScore = { scorer, value: s.value, raw: raw as string | number | boolean };
  if (typeof explanation === 'string' && explanation !== '') score.explanation = explanation.slice(0, 2000);
  return { score };
}
