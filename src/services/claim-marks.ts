import { createHash } from 'node:crypto';
import { splitSentences } from '../scoring/description/sentences.ts';

/**
 * Claim marks (`claim:<n>`) are stored by sentence index, and the index is only meaningful against the
 * split it was given on: when the segmenter changes, sentence n of an answer can become another sentence.
 * So a mark records a short hash of the sentence it was given on (labels.claim_sentence, migration 0011),
 * and every reader resolves it against today's split: a mark whose sentence no longer matches is stale
 * ("re-mark this sentence"), never attached to whatever sentence now has its index. Marks from before
 * 0011 have no hash: "sentence unknown" — kept on index n while n exists, stale once it does not. A label
 * file's mark is checked against today's split, so it records today's sentence n as the app does; a run
 * export carries the stored hash (import-labels.ts, import-export-labels.ts).
 */

const CLAIM_KEY = /^claim:(0|[1-9][0-9]*)$/;

/** The sentence index of a claim key, or null for any other key. */
export function claimIndex(item: string): number | null {
  const m = CLAIM_KEY.exec(item);
  return m ? Number(m[1]) : null;
}

/** Whitespace-insensitive (a re-wrapped line is the same sentence); 12 hex digits are plenty within one answer. */
export function sentenceHash(sentence: string): string {
  return createHash('sha256').update(sentence.replace(/\s+/g, ' ').trim()).digest('hex').slice(0, 12);
}

/** The hash a claim mark given now on `item` records (null for a key that is no claim or no sentence of the text). */
export function claimStamp(item: string, sentences: readonly string[]): string | null {
  const n = claimIndex(item);
  return n === null || n >= sentences.length ? null : sentenceHash(sentences[n]!);
}

/** Why a claim key cannot be given on this answer's sentences today, or null when it can (or is no claim key). */
export function claimRangeProblem(item: string, sentences: number): string | null {
  const n = claimIndex(item);
  if (n === null || n < sentences) return null;
  return sentences === 0 ? `item '${item}': the answer has no sentences to mark` : `item '${item}': the answer has claims 0..${sentences - 1}`;
}

/**
 * A stored claim mark against today's split: 'current' (its sentence is sentence n today), 'unknown'
 * (no hash recorded; n exists, so it is shown on n, flagged) or 'stale' (given on another sentence, or
 * unknown and n no longer exists).
 */
export type ClaimStanding = 'current' | 'unknown' | 'stale';
export function claimStanding(index: number, hash: string | null, sentences: readonly string[]): ClaimStanding {
  if (index >= sentences.length) return 'stale';
  if (hash === null) return 'unknown';
  return sentenceHash(sentences[index]!) === hash ? 'current' : 'stale';
}

/** The sentences of an answer text, as the annotation pages split them (annotation-claims.ts splitClaims). */
export const sentencesOf = (text: string | null): string[] => splitSentences(text ?? '');

export const STALE_CLAIM_NOTE = 'stale: given on another sentence than this index is today — re-mark this sentence';
