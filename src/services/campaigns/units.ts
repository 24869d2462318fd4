import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { answers, campaignAssignments, labels } from '../../db/schema.ts';
import { ANSWER_SCALE_KEYS } from '../../domain/campaigns.ts';
import { claimIndex, claimStanding } from '../claim-marks.ts';
import { CLAIM_PREFIX, splitClaims } from '../annotation-claims.ts';
import type { Campaign } from './load.ts';
import { intList, rowsOf } from './sql.ts';

/**
 * The label units a campaign asks of one annotator for one answer: every item of the rubric's newest
 * version (verdict), every sentence (claims, `claim:<n>`), the binary and the numeric answer-level key.
 * An assignment is done once each has the annotator's label.
 */
export async function requiredUnits(tx: Queryable, campaign: Campaign, answerIds: readonly number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(answerIds.map((id) => [id, []]));
  if (answerIds.length === 0) return out;
  const s = campaign.spec.scales;
  if (s.verdict) {
    const rows = await rowsOf<{ answerId: number; item: string }>(
      tx,
      sql`select a.id as "answerId", ri.item_key as item from answers a
            join rubric_versions rv on rv.rubric_id = a.rubric_id
             and rv.version = (select max(v.version) from rubric_versions v where v.rubric_id = a.rubric_id)
            join rubric_items ri on ri.rubric_version_id = rv.id
           where a.id in ${intList(answerIds)} order by a.id, ri.item_key`,
    );
    for (const r of rows) out.get(Number(r.answerId))?.push(r.item);
  }
  if (s.claims) {
    const rows = await tx.select({ id: answers.id, text: answers.text }).from(answers).where(inArray(answers.id, [...answerIds]));
    for (const r of rows) splitClaims(r.text ?? '').forEach((_, i) => out.get(r.id)?.push(`${CLAIM_PREFIX}${i}`));
  }
  for (const id of answerIds) {
    if (s.binary) out.get(id)!.push(ANSWER_SCALE_KEYS.binary);
    if (s.numeric) out.get(id)!.push(ANSWER_SCALE_KEYS.numeric);
  }
  return out;
}

/**
 * Marks each of the annotator's assignments done exactly when every required unit has their label, both
 * ways: a finished answer is open again once a unit lacks their label (a new rubric version added an
 * item, a label was deleted), so it comes back to them first and never counts as complete meanwhile.
 * Derived from the labels themselves, so the campaign's and plain labels saved by any front (the workspace,
 * the API, an import) count; a label given in another campaign does not.
 */
export async function refreshDone(tx: Queryable, campaign: Campaign, annotator: string, only?: readonly number[]): Promise<void> {
  const held = await tx
    .select({ answerId: campaignAssignments.answerId, doneAt: campaignAssignments.doneAt })
    .from(campaignAssignments)
    .where(and(eq(campaignAssignments.campaignId, campaign.id), eq(campaignAssignments.annotator, annotator)));
  const mine = held.filter((h) => !only || only.includes(h.answerId));
  if (mine.length === 0) return;
  const ids = mine.map((h) => h.answerId);
  const need = await requiredUnits(tx, campaign, ids);
  const have = await tx
    .select({ answerId: labels.answerId, item: labels.itemKey, sentence: labels.claimSentence })
    .from(labels)
    // The campaign's labels only (campaign-labels.ts ofCampaign): its own or plain ones, never another campaign's.
    .where(and(inArray(labels.answerId, ids), eq(labels.annotator, annotator), eq(labels.kind, 'human'), or(eq(labels.campaignId, campaign.id), isNull(labels.campaignId))));
  // A claim mark given on another sentence than today's sentence n (claim-marks.ts) is no mark of claim n.
  const texts = have.some((h) => claimIndex(h.item) !== null)
    ? new Map((await tx.select({ id: answers.id, text: answers.text }).from(answers).where(inArray(answers.id, ids))).map((a) => [a.id, splitClaims(a.text ?? '')]))
    : new Map<number, string[]>();
  const counts = (h: (typeof have)[number]) => {
    const n = claimIndex(h.item);
    return n === null || claimStanding(n, h.sentence, texts.get(h.answerId) ?? []) !== 'stale';
  };
  const by = new Map<number, Set<string>>();
  for (const h of have.filter(counts)) by.set(h.answerId, (by.get(h.answerId) ?? new Set()).add(h.item));
  const finished = (id: number) => (need.get(id) ?? []).every((u) => by.get(id)?.has(u));
  const done = mine.filter((h) => h.doneAt === null && finished(h.answerId)).map((h) => h.answerId);
  const reopened = mine.filter((h) => h.doneAt !== null && !finished(h.answerId)).map((h) => h.answerId);
  for (const [list, doneAt] of [[done, sql`now()`], [reopened, null]] as const) {
    if (list.length === 0) continue;
    await tx
      .update(campaignAssignments)
      .set({ doneAt })
      .where(and(eq(campaignAssignments.campaignId, campaign.id), eq(campaignAssignments.annotator, annotator), inArray(campaignAssignments.answerId, list)));
  }
}
