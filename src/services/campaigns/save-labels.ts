import { and, eq } from 'drizzle-orm';
import type { Database, Queryable } from '../../db/client.ts';
import { answers, campaignAnswers, campaignAssignments } from '../../db/schema.ts';
import { ANSWER_SCALE_KEYS, type CampaignMark } from '../../domain/campaigns.ts';
import { AssayError, badInput } from '../../domain/errors.ts';
import { SCALES } from '../../domain/labels.ts';
import { inTransaction, refuseChanged, type Expected } from '../label-expect.ts';
import { claimStamp } from '../claim-marks.ts';
import { upsertLabels } from '../labels.ts';
import { annotatableItems, itemProblem, type AnnotatableItems } from '../annotatable-items.ts';
import { CLAIM_PREFIX, splitClaims } from '../annotation-claims.ts';
import { annotatorLabels } from '../annotator-labels.ts';
import { findCampaign, type Campaign } from './load.ts';
import { requireAnnotator } from './next.ts';
import { lockAnnotator, takeSlotOf } from './queue.ts';
import { refreshDone } from './units.ts';

interface AnswerFacts {
  items: AnnotatableItems | null;
  claims: number;
  /** Today's sentences: a claim mark records the one it is given on (claim-marks.ts). */
  sentences: string[];
}

type Stored = { key: string; label: string } | string;
type Scales = Campaign['spec']['scales'];
/** Per scale: the stored (item_key, label) of one mark, or the problem with it; a lookup, one entry per scale. */
const MARK_ROWS: { [S in CampaignMark['scale']]: (s: Scales, m: Extract<CampaignMark, { scale: S }>, a: AnswerFacts) => Stored } = {
  verdict: (s, m, a) => (!s.verdict ? NOT_ASKED(m.scale) : !a.items ? `item '${m.item}': unknown item for this answer's rubric` : (itemProblem(a.items, m.item) ?? { key: m.item, label: m.label })),
  claims: (s, m, a) => (!s.claims ? NOT_ASKED(m.scale) : m.claim >= a.claims ? `claim ${m.claim}: the answer has claims 0..${a.claims - 1}` : { key: `${CLAIM_PREFIX}${m.claim}`, label: m.label }),
  binary: (s, m) => {
    if (!s.binary) return NOT_ASKED(m.scale);
    const n = SCALES.binary.normalise(m.label);
    return n ? { key: ANSWER_SCALE_KEYS.binary, label: String(n.category) } : `binary: ${JSON.stringify(m.label)} is not ${SCALES.binary.accepts}`;
  },
  numeric: (s, m) =>
    !s.numeric ? NOT_ASKED(m.scale) : m.label > s.numeric.k ? `numeric: rating ${m.label} is outside 1..${s.numeric.k}` : { key: ANSWER_SCALE_KEYS.numeric, label: String(m.label) },
};

const NOT_ASKED = (scale: string) => `scale '${scale}' is not one of this campaign's scales`;

function markRow(campaign: Campaign, m: CampaignMark, a: AnswerFacts): Stored {
  return (MARK_ROWS[m.scale] as (s: Scales, m: CampaignMark, a: AnswerFacts) => Stored)(campaign.spec.scales, m, a);
}

async function answerFacts(tx: Queryable, answerId: number): Promise<AnswerFacts> {
  const [a] = await tx.select({ rubricId: answers.rubricId, text: answers.text }).from(answers).where(eq(answers.id, answerId));
  const items = a!.rubricId === null ? null : await annotatableItems(tx, a!.rubricId);
  const sentences = splitClaims(a!.text ?? '');
  return { items, claims: sentences.length, sentences };
}

/**
 * Saves one annotator's labels of one campaign answer as labels of the campaign (each replacing their own
 * earlier one in it), with the rubric version they were checked against. All or nothing: every mark is checked first and any problem refuses the
 * whole save. An annotator who does not hold the answer takes one of its k slots here, under the same
 * rule as the queue, so labelling around the queue cannot pass k either.
 */
export async function saveCampaignLabels(
  database: Database,
  input: { campaign: number | string; answerId: number; annotator: string; marks: readonly CampaignMark[]; expected?: Expected },
): Promise<{ created: number; updated: number; unchanged: number; done: boolean }> {
  if (input.marks.length === 0) throw badInput('marks: at least one label is required');
  return database.db.transaction(async (tx) => {
    const campaign = await findCampaign(tx, input.campaign);
    requireAnnotator(campaign, input.annotator);
    const [queued] = await tx
      .select({ answerId: campaignAnswers.answerId })
      .from(campaignAnswers)
      .where(and(eq(campaignAnswers.campaignId, campaign.id), eq(campaignAnswers.answerId, input.answerId)));
    if (!queued) throw new AssayError('not_found', `campaign '${campaign.name}': answer ${input.answerId} is not in it`);
    const facts = await answerFacts(tx, input.answerId);
    const problems: string[] = [];
    const rows = new Map<string, string>();
    for (const m of input.marks) {
      const r = markRow(campaign, m, facts);
      if (typeof r === 'string') problems.push(r);
      else if (rows.has(r.key) && rows.get(r.key) !== r.label) problems.push(`${r.key}: given twice ('${rows.get(r.key)}' and '${r.label}')`);
      else rows.set(r.key, r.label);
    }
    if (problems.length) throw badInput(`answer ${input.answerId}: ${problems.join('; ')}; nothing saved`);

    await lockAnnotator(tx, campaign, input.annotator);
    // Under the annotator's lock: a page that saw other labels than those stored now is refused (label-expect.ts).
    if (input.expected?.size) refuseChanged(input.answerId, await annotatorLabels(inTransaction(database, tx), input.answerId, input.annotator, campaign.id), input.expected, rows);
    const [held] = await tx
      .select({ doneAt: campaignAssignments.doneAt })
      .from(campaignAssignments)
      .where(and(eq(campaignAssignments.campaignId, campaign.id), eq(campaignAssignments.answerId, input.answerId), eq(campaignAssignments.annotator, input.annotator)));
    if (!held) await takeSlotOf(tx, campaign, input.annotator, input.answerId);

    // The campaign is part of the label's key: this replaces the annotator's earlier label in this
    // campaign only, never what they said in another campaign or on the plain pages.
    const rubricVersionId = facts.items && facts.items.versionId > 0 ? facts.items.versionId : null;
    // One write rule with the plain labels (upsertLabels): the same label sent again is unchanged, not updated.
    const written = await upsertLabels(
      tx,
      [...rows].map(([itemKey, label]) => ({ answerId: input.answerId, itemKey, annotator: input.annotator, kind: 'human' as const, label, campaignId: campaign.id, rubricVersionId, claimSentence: claimStamp(itemKey, facts.sentences) })),
    );
    await refreshDone(tx, campaign, input.annotator, [input.answerId]);
    const [after] = await tx
      .select({ doneAt: campaignAssignments.doneAt })
      .from(campaignAssignments)
      .where(and(eq(campaignAssignments.campaignId, campaign.id), eq(campaignAssignments.answerId, input.answerId), eq(campaignAssignments.annotator, input.annotator)));
    return { created: written.inserted, updated: written.updated, unchanged: written.unchanged, done: after?.doneAt != null };
  });
}
