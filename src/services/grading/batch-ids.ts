import { canonicalJson, sha256 } from '../../judges/config.ts';
import type { JudgeRequest } from '../../judges/types.ts';

/**
 * The custom ids of `assay run --batch` (batch.ts): each names the judge config, the answer, the attempt
 * and the request it was sent with, so a result is matched to its answer and stored only as the grade of
 * the request it answers.
 */

/**
 * What a request asks, as the response cache keys it (template, rubric and system text, answer text):
 * a batch takes hours, and a rubric's new version or an answer's new text meanwhile makes its result
 * the verdict on something else.
 */
export const requestFingerprint = (req: Pick<JudgeRequest, 'prompt' | 'answerHash'>): string =>
  sha256(canonicalJson({ prompt: req.prompt.promptHash, static: req.prompt.staticHash, answer: req.answerHash })).slice(0, 16);

/**
 * Deterministic per (judge config, answer, attempt, request fingerprint); ≤ 64 characters,
 * [a-zA-Z0-9_-] as Anthropic requires. The fingerprint says which request a result answers.
 */
export const customIdFor = (configHash: string, answerId: number, attempt: number, fingerprint: string): string =>
  `j${configHash.slice(0, 12)}-a${answerId}-t${attempt}-r${fingerprint}`;

/** The fingerprint a custom id was made with; null for ids written before it was part of them. */
export const fingerprintOf = (customId: string): string | null => /-r([0-9a-f]{16})$/.exec(customId)?.[1] ?? null;

/**
 * The requests a row's batch sends: one per fingerprint (answers of the same text on the same rubric
 * are one request, paid once; the others are graded from its verdict). Ids without a fingerprint are
 * each sent.
 */
export function sentEntries(customIds: Record<string, number>): Array<[string, number]> {
  const seen = new Set<string>();
  return Object.entries(customIds).filter(([cid]) => {
    const fp = fingerprintOf(cid);
    if (fp === null) return true;
    if (seen.has(fp)) return false;
    seen.add(fp);
    return true;
  });
}
