import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { answers } from '../db/schema.ts';
import { ANSWER_SCALE_KEYS } from '../domain/campaigns.ts';
import { badInput, notFound } from '../domain/errors.ts';
import { CLAIM_VERDICTS, ITEM_VERDICTS } from '../domain/verdicts.ts';
import { SCALES } from '../domain/labels.ts';
import { annotatableItems, itemProblem, type AnnotatableItems } from './annotatable-items.ts';
import { CLAIM_PREFIX, splitClaims } from './annotation-claims.ts';
import { annotatorLabels } from './annotator-labels.ts';
import { claimStamp } from './claim-marks.ts';
import { inTransaction, lockAnswerLabels, refuseChanged, type Expected } from './label-expect.ts';
import { refuseUndescribed } from './label-values.ts';
import { upsertLabels } from './labels.ts';

/**
 * Saving the annotation pages' marks: item verdicts, claim marks (item key `claim:<n>`, annotation-claims.ts),
 * and the workspace's whole-answer marks (workspace.ts), stored where campaigns store them
 * (domain/campaigns.ts ANSWER_SCALE_KEYS). The rest of the workflow: annotation-progress.ts (the queue),
 * annotation-task.ts (the task), annotator-labels.ts (the labels so far), annotatable-items.ts.
 * Only an answer row that is really absent is not_found; a failing query is never caught here, so it
 * reaches the fronts as the database error it is (500), not as a missing answer.
 */

/** Still imported from here by web-calibration.ts. */
export { CLAIM_PREFIX };

export type AnnotationMark = { item: string; label: string } | { claim: number; label: string } | { binary: string } | { rating: number };
export type AnnotationInput = { answerId: number; annotator: string } & AnnotationMark;

/** The 1..k rating of the plain queue (a campaign names its own k and anchors). */
export const PLAIN_RATING_K = 5;

const markName = (m: AnnotationMark): string =>
  'item' in m ? `item '${m.item}'` : 'claim' in m ? `claim ${String(m.claim)}` : 'binary' in m ? 'binary' : 'rating';

/**
 * The stored (item_key, label) of one mark, or the problem with it: a verdict of the vocabulary for an
 * item of the rubric, a claim mark for a claim that exists, pass/fail (stored as true/false, as
 * campaigns store it), a whole rating 1..PLAIN_RATING_K.
 */
function markRow(m: AnnotationMark, items: AnnotatableItems | null, claims: number): { key: string; label: string } | string {
  if ('item' in m) {
    if (!(ITEM_VERDICTS as readonly string[]).includes(m.label)) return `item '${m.item}': label must be one of ${ITEM_VERDICTS.join('|')}, got '${m.label}'`;
    if (m.item.startsWith(CLAIM_PREFIX) || m.item.startsWith('answer:')) return `item '${m.item}': not a rubric item`;
    if (items === null) return `item '${m.item}': the answer has no rubric, so items cannot be labelled`;
    return itemProblem(items, m.item) ?? { key: m.item, label: m.label };
  }
  if ('claim' in m) {
    if (!(CLAIM_VERDICTS as readonly string[]).includes(m.label)) return `claim ${m.claim}: label must be one of ${CLAIM_VERDICTS.join('|')}, got '${m.label}'`;
    if (!Number.isInteger(m.claim) || m.claim < 0 || m.claim >= claims) return `claim ${String(m.claim)}: the answer has claims 0..${claims - 1}`;
    return { key: `${CLAIM_PREFIX}${m.claim}`, label: m.label };
  }
  if ('binary' in m) {
    const n = SCALES.binary.normalise(m.binary);
    return n ? { key: ANSWER_SCALE_KEYS.binary, label: String(n.category) } : `binary: ${JSON.stringify(m.binary)} is not ${SCALES.binary.accepts}`;
  }
  if (!Number.isInteger(m.rating) || m.rating < 1 || m.rating > PLAIN_RATING_K) return `rating: ${String(m.rating)} is not a whole number 1..${PLAIN_RATING_K}`;
  return { key: ANSWER_SCALE_KEYS.numeric, label: String(m.rating) };
}

/**
 * Saves an annotator's verdicts and claim marks of one answer (each replacing their own earlier one).
 * All or nothing: every mark is checked first and one bad mark fails the whole request, naming every
 * problem, with nothing written; the good ones are then written in one transaction.
 */
export async function saveAnnotations(
  database: Database,
  input: { answerId: number; annotator: string; marks: AnnotationMark[]; expected?: Expected },
): Promise<{ created: number; updated: number; unchanged: number }> {
  if (input.annotator.trim() === '') throw badInput('annotator: must not be empty');
  return database.db.transaction(async (tx) => {
    const [a] = await tx.select({ id: answers.id, task: answers.task, rubricId: answers.rubricId, text: answers.text }).from(answers).where(eq(answers.id, input.answerId));
    if (!a) throw notFound(`answer ${input.answerId} not found`);
    refuseUndescribed(a);
    const items = a.rubricId === null ? null : await annotatableItems(tx, a.rubricId);
    const sentences = splitClaims(a.text ?? '');
    const claims = sentences.length;
    const problems: string[] = [];
    const seen = new Map<string, string>();
    for (const m of input.marks) {
      const r = markRow(m, items, claims);
      if (typeof r === 'string') {
        problems.push(r);
        continue;
      }
      const prev = seen.get(r.key);
      if (prev !== undefined && prev !== r.label) problems.push(`${markName(m)}: given twice ('${prev}' and '${r.label}')`);
      seen.set(r.key, r.label);
    }
    if (problems.length > 0) throw badInput(`answer ${a.id}: ${problems.join('; ')}; nothing saved`);
    // A page that saw other labels than those stored now is refused (label-expect.ts), nothing written.
    if (input.expected?.size) {
      await lockAnswerLabels(tx, a.id, input.annotator);
      refuseChanged(a.id, await annotatorLabels(inTransaction(database, tx), a.id, input.annotator), input.expected, seen);
    }
    // Every mark was checked against the current version above: that is the version it was given against.
    const rubricVersionId = items && items.versionId > 0 ? items.versionId : null;
    // A claim mark records the sentence it was given on, so a later change of the split cannot move it.
    const values = [...seen].map(([itemKey, label]) => ({ answerId: a.id, itemKey, annotator: input.annotator, kind: 'human' as const, label, rubricVersionId, claimSentence: claimStamp(itemKey, sentences) }));
    return upsertLabels(tx, values).then((r) => ({ created: r.inserted, updated: r.updated, unchanged: r.unchanged }));
  });
}

/** Saves one mark: a verdict, a claim mark, pass/fail or a rating (replacing the annotator's earlier one). */
export async function saveAnnotation(database: Database, input: AnnotationInput): Promise<{ created: boolean }> {
  const { answerId, annotator, ...mark } = input;
  const r = await saveAnnotations(database, { answerId, annotator, marks: [mark] });
  return { created: r.created === 1 };
}
