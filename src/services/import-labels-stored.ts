import { and, inArray, isNull, or, type SQL } from 'drizzle-orm';
import { AssayError } from '../domain/errors.ts';
import type { Queryable } from '../db/client.ts';
import { labels } from '../db/schema.ts';
import type { Candidate } from './import-labels-answers.ts';
import { where, type ImportFile, type Located } from './import-parse.ts';
import { storedLabelValue } from './label-values.ts';
import { CHUNK } from './labels.ts';

/**
 * The stored labels a label import meets (import-labels.ts), what counts as changing one, and the refusal
 * of an import that would change stored labels without `replace` (how many, and a few shown).
 */

export type Stored = Pick<typeof labels.$inferSelect, 'answerId' | 'itemKey' | 'annotator' | 'campaignId' | 'kind' | 'label' | 'rubricVersionId' | 'claimSentence'>;
/** A label row to write; created_at as SQL (an exported time read to the microsecond), or the default now(). */
export type LabelInsert = Omit<typeof labels.$inferInsert, 'createdAt'> & { createdAt?: SQL };

/** LABEL_KEY as text: a campaign's label and the plain one of the same unit are two labels. */
export const keyOf = (l: { answerId: number; itemKey: string; annotator: string; campaignId?: number | null }) => `${l.answerId}\u0000${l.itemKey}\u0000${l.annotator}\u0000${l.campaignId ?? ''}`;

/**
 * The stored labels of the answers that the import could meet: the plain ones, and those of the campaigns
 * its rows name (a run export's); never another campaign's (those are apart, labels.ts).
 */
export async function storedLabels(tx: Queryable, answerIds: number[], campaignIds: number[] = []): Promise<Map<string, Stored>> {
  const out = new Map<string, Stored>();
  for (let i = 0; i < answerIds.length; i += CHUNK) {
    const rows = await tx
      .select({ answerId: labels.answerId, itemKey: labels.itemKey, annotator: labels.annotator, campaignId: labels.campaignId, kind: labels.kind, label: labels.label, rubricVersionId: labels.rubricVersionId, claimSentence: labels.claimSentence })
      .from(labels)
      .where(and(inArray(labels.answerId, answerIds.slice(i, i + CHUNK)), campaignIds.length ? or(isNull(labels.campaignId), inArray(labels.campaignId, campaignIds)) : isNull(labels.campaignId)));
    for (const r of rows) out.set(keyOf(r), r);
  }
  return out;
}

const quote = (s: string) => JSON.stringify(s);

/** A row that names its rubric version changes a stored label given against another (or an unknown) one. */
const versionChanged = (before: Stored, after: LabelInsert) => after.rubricVersionId != null && after.rubricVersionId !== before.rubricVersionId;
/**
 * A claim mark given on another sentence than the stored one (both known): the same label on claim n is
 * then a mark of another sentence, a change. A stored mark of unknown sentence (before migration 0011) is
 * left as it is by the same label.
 */
const sentenceChanged = (before: Stored, after: LabelInsert) => before.claimSentence != null && after.claimSentence != null && after.claimSentence !== before.claimSentence;
/**
 * A stored label in the form an import now stores: one stored as written by an import before labels were
 * normalised ('Correct') is the same label as its normal form, not a change to refuse; one no scale reads stays as it is.
 */
function normalForm(before: Stored): string {
  try {
    return storedLabelValue('', before.itemKey, before.label);
  } catch {
    return before.label;
  }
}
const labelChanged = (before: Stored, after: LabelInsert) => before.label !== after.label && normalForm(before) !== after.label;
export const same = (before: Stored, after: LabelInsert) => !labelChanged(before, after) && before.kind === after.kind && !versionChanged(before, after) && !sentenceChanged(before, after);

export function describeChange(loc: Located, answer: Candidate, before: Stored, after: LabelInsert, versionNo: (id: number | null | undefined) => string): string {
  const what = [`answer ${quote(answer.externalId)} of run ${quote(answer.run)}`, before.itemKey ? `item ${quote(before.itemKey)}` : 'whole answer', `rater ${quote(before.annotator)}`];
  const change = [
    labelChanged(before, after) && `${quote(before.label)} → ${quote(after.label)}`,
    before.kind !== after.kind && `kind ${before.kind} → ${after.kind}`,
    versionChanged(before, after) && `rubric version ${versionNo(before.rubricVersionId)} → ${versionNo(after.rubricVersionId)}`,
    sentenceChanged(before, after) && `claim given on another sentence (${before.claimSentence} → ${after.claimSentence})`,
  ].filter(Boolean);
  return `${where(loc.file, loc.line)} ${what.join(', ')}: ${change.join(', ')}`;
}

export function replaceRefused(file: ImportFile, examples: string[], total: number): AssayError {
  const more = total > examples.length ? `; and ${total - examples.length} more` : '';
  return new AssayError(
    'conflict',
    `${file.path}: would replace ${total} stored label${total === 1 ? '' : 's'} (${examples.join('; ')}${more}); nothing written — ` +
      'to replace them, import again with --replace (API: ?replace=true)',
  );
}

/** How many of the changes a refusal shows. */
export const EXAMPLES = 3;
