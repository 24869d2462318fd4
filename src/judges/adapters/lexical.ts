import type { Rubric } from '../../domain/rubric.ts';
import type { ItemVerdict } from '../../domain/verdicts.ts';
import type { JudgeConfig } from '../config.ts';
import type { ReferenceMatchOutput, RubricOutput } from '../contract.ts';
import { type Judge, type JudgeReply, type JudgeRequest, ZERO_USAGE } from '../types.ts';

/**
 * The lexical baseline: word overlap, no model. It is a floor, not a judge — it cannot see the
 * picture, cannot tell a contradiction from a mention ("red tractor" overlaps "green tractor" on
 * "tractor"), and so never says `incorrect` or `false`. Deterministic and offline, so it grades
 * every bundled example without a key and gives any LLM judge a number it must beat.
 *
 * item: share of the item's content words found in the answer ≥ correct → correct, ≥ partial → partial,
 * else missing. claim: each answer sentence; ≥ half its content words in the reference → true, else
 * unverifiable. reference-match: pass when the answer covers ≥ `correct` of the reference's content words
 * weighted as the items are, i.e. mean item overlap.
 */

const STOP = new Set(
  ('a an and are as at be by for from has have in into is it its of on or over the their there these this those to ' +
    'with without was were which while who will would can could also some any all each about above below near ' +
    'other one two three four five six seven eight nine ten few several many picture image scene shows shown ' +
    'stands stand sits sit lies lie left right top bottom middle centre center side').split(' '),
);
// Counts and positions are kept out of STOP above only where they carry meaning; the list is tuned to
// keep "red", "barn", "pond" and drop glue words. Position words are dropped because every rubric uses them.

// Suffix → letters that must remain; a plural "s" may leave three ("cows" → "cow"), never after "ss".
const SUFFIXES: ReadonlyArray<[string, number]> = [['ing', 4], ['ed', 4], ['es', 4], ['ly', 4], ['s', 3]];

/** Light stemming: strip one common suffix, keeping a stem long enough to stay distinctive. */
export function stem(word: string): string {
  if (word.endsWith('ss')) return word;
  for (const [suf, keep] of SUFFIXES) if (word.endsWith(suf) && word.length - suf.length >= keep) return word.slice(0, -suf.length);
  return word;
}

export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => w.length > 1 && !STOP.has(w)).map(stem);
}

const META_LINE = /^\s*(orientation|grid|pieces?|piece count)\s*[:=]/i;

export function sentences(answer: string): string[] {
  return answer
    .split(/\n/)
    .filter((l) => !META_LINE.test(l))
    .join(' ')
    .split(/(?<=[.!?])\s+|;\s+/)
    .map((s) => s.trim())
    .filter((s) => contentWords(s).length > 0);
}

function overlap(words: readonly string[], pool: ReadonlySet<string>): number {
  const uniq = [...new Set(words)];
  return uniq.length ? uniq.filter((w) => pool.has(w)).length / uniq.length : 0;
}

export interface LexicalThresholds {
  correct: number;
  partial: number;
}

export function lexicalRubricVerdicts(rubric: Rubric, answer: string, t: LexicalThresholds): RubricOutput {
  const sents = sentences(answer);
  const answerWords = new Set(contentWords(answer));
  const referenceWords = new Set(contentWords(rubric.reference));
  const items = rubric.items.map((it) => {
    const words = contentWords(it.text);
    const share = overlap(words, answerWords);
    const verdict: ItemVerdict = share >= t.correct ? 'correct' : share >= t.partial ? 'partial' : 'missing';
    let evidence = '';
    if (verdict !== 'missing') {
      const itemSet = new Set(words);
      const best = sents.reduce<{ s: string; n: number }>((b, s) => {
        const n = overlap(contentWords(s), itemSet);
        return n > b.n ? { s, n } : b;
      }, { s: '', n: 0 });
      evidence = best.s.split(/\s+/).slice(0, 20).join(' ');
    }
    return { id: it.id, verdict, evidence };
  });
  const claims = sents.map((s) => ({ text: s, verdict: overlap(contentWords(s), referenceWords) >= 0.5 ? ('true' as const) : ('unverifiable' as const) }));
  return { items, claims };
}

export function lexicalReferenceMatch(rubric: Rubric, answer: string, t: LexicalThresholds): ReferenceMatchOutput {
  const answerWords = new Set(contentWords(answer));
  const shares = rubric.items.map((it) => overlap(contentWords(it.text), answerWords));
  const mean = shares.reduce((a, b) => a + b, 0) / Math.max(1, shares.length);
  const label = mean >= t.correct ? 'pass' : 'fail';
  return { label, rationale: `lexical baseline: mean item word overlap ${mean.toFixed(3)} (pass at ≥ ${t.correct})` };
}

export function createLexicalJudge(config: JudgeConfig): Judge {
  const t: LexicalThresholds = { correct: config.lexical?.correct ?? 0.6, partial: config.lexical?.partial ?? 0.3 };
  return {
    provider: 'lexical',
    model: config.model,
    baseline: true,
    async call(req: JudgeRequest): Promise<JudgeReply> {
      const out = req.mode === 'rubric' ? lexicalRubricVerdicts(req.rubric, req.answer, t) : lexicalReferenceMatch(req.rubric, req.answer, t);
      return { structured: out, text: JSON.stringify(out), stop: 'complete', stopDetail: 'lexical', usage: { ...ZERO_USAGE } };
    },
  };
}
