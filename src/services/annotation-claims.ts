import { splitSentences } from '../scoring/description/sentences.ts';

/**
 * Claims, as the annotation pages and campaigns ask them: the answer's sentences (split deterministically,
 * so the keys stay stable); a claim mark is a label with item key `claim:<n>` and label
 * true|false|unverifiable.
 */

export const CLAIM_PREFIX = 'claim:';

/**
 * The answer's sentences: what the annotator marks true, false or unverifiable (the segmenter of
 * scoring/description/sentences.ts: wrapped lines joined, never a fragment of a sentence).
 */
export function splitClaims(text: string): string[] {
  return splitSentences(text);
}
