import type { Database } from '../db/client.ts';
import { badInput } from '../domain/errors.ts';
import { splitClaims } from './annotation-claims.ts';
import { getAnswer } from './answers.ts';
import { annotatorLabels, type StaleClaim } from './annotator-labels.ts';
import type { ClaimStanding } from './claim-marks.ts';
import { getRubric } from './rubrics.ts';

/**
 * The blind annotation task of one answer: its text, rubric items and claims with the annotator's labels
 * so far. Nothing here reads grades: the annotator never sees a judge's verdicts. Only an answer row that
 * is really absent is not_found; a failing query is never caught here, so it reaches the fronts as the
 * database error it is (500), not as a missing answer.
 */

export interface AnnotationTask {
  answerId: number;
  answer: string;
  run: string;
  model: string;
  text: string;
  rubric: { slug: string; title: string; version: number };
  items: Array<{ id: string; text: string; weight: number; label: string | null }>;
  /**
   * Each sentence with the annotator's mark of it: `sentence` says whether the mark was given on this very
   * sentence ('current') or is an old one whose sentence is unknown; `stale` is a mark stored at this index
   * but given on another sentence (the split moved): not this sentence's label — re-mark this sentence.
   */
  claims: Array<{ index: number; text: string; label: string | null; sentence?: Exclude<ClaimStanding, 'stale'> | null; stale?: { label: string } | null }>;
  /** Every stale claim mark, including those at an index the answer no longer has (claim-marks.ts). */
  staleClaims?: StaleClaim[];
}

/** The task with the annotator's labels so far: plain ones, or those of the campaign (row id) it is opened in. */
export async function annotationTask(database: Database, answerId: number, annotator: string, campaignId: number | null = null): Promise<AnnotationTask> {
  const a = await getAnswer(database, answerId);
  if (a.task !== 'describe' && a.task !== 'describe-then-solve') throw badInput(`answer ${answerId}: task '${a.task}' has no description to annotate`);
  if (!a.rubric) throw badInput(`answer ${answerId}: has no rubric to annotate against`);
  const rubric = await getRubric(database, a.rubric);
  const mine = await annotatorLabels(database, answerId, annotator, campaignId);
  const text = a.text ?? '';
  const staleAt = new Map((mine.staleClaims ?? []).map((c) => [c.index, c]));
  return {
    answerId,
    answer: a.externalId,
    run: a.run,
    model: a.model,
    text,
    rubric: { slug: rubric.id, title: rubric.title, version: rubric.version },
    items: rubric.items.map((it) => ({ id: it.id, text: it.text, weight: it.weight, label: mine.items[it.id] ?? null })),
    claims: splitClaims(text).map((t, index) => ({
      index,
      text: t,
      label: mine.claims[index] ?? null,
      sentence: mine.claimSentences?.[index] ?? null,
      stale: staleAt.has(index) ? { label: staleAt.get(index)!.label } : null,
    })),
    staleClaims: mine.staleClaims,
  };
}
