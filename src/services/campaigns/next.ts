import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { campaignAnswers, campaignAssignments } from '../../db/schema.ts';
import { workspaceSpec, type WorkspaceSpec } from '../../domain/campaigns.ts';
import { AssayError } from '../../domain/errors.ts';
import { findCampaign, type Campaign } from './load.ts';
import { lockAnnotator, takeNextSlot, type Slot } from './queue.ts';
import { refreshDone } from './units.ts';

export interface NextAnswer extends Slot {
  /** What the workspace shows for this answer (never the judge's output). */
  workspace: WorkspaceSpec;
  /** True when the annotator already held it (a resumed answer), false when it was just taken. */
  resumed: boolean;
}

/** An annotator outside the campaign gets nothing from it: forbidden, not an empty queue. */
export function requireAnnotator(campaign: Campaign, annotator: string): void {
  if (!campaign.annotators.includes(annotator)) {
    throw new AssayError('forbidden', `campaign '${campaign.name}': '${annotator}' is not one of its annotators`);
  }
}

/**
 * The next answer for one annotator: the first (in queue order) they hold but have not finished, else
 * the first they have not labelled that still has fewer than k annotators — taken for them in the same
 * transaction (queue.ts), so k is never passed. Null when nothing is left for them.
 */
export async function nextForAnnotator(database: Database, q: { campaign: number | string; annotator: string }): Promise<NextAnswer | null> {
  return database.db.transaction(async (tx) => {
    const campaign = await findCampaign(tx, q.campaign);
    requireAnnotator(campaign, q.annotator);
    await lockAnnotator(tx, campaign, q.annotator);
    await refreshDone(tx, campaign, q.annotator);
    const [open] = await tx
      .select({ answerId: campaignAnswers.answerId, rank: campaignAnswers.rank, reason: campaignAnswers.reason })
      .from(campaignAssignments)
      .innerJoin(campaignAnswers, and(eq(campaignAnswers.campaignId, campaignAssignments.campaignId), eq(campaignAnswers.answerId, campaignAssignments.answerId)))
      .where(and(eq(campaignAssignments.campaignId, campaign.id), eq(campaignAssignments.annotator, q.annotator), isNull(campaignAssignments.doneAt)))
      .orderBy(asc(campaignAnswers.rank))
      .limit(1);
    const slot = open ?? (await takeNextSlot(tx, campaign, q.annotator));
    if (!slot) return null;
    return { ...slot, workspace: workspaceSpec(campaign.id, campaign.spec, slot.reason), resumed: open !== undefined };
  });
}

/** The workspace of one campaign answer for an annotator who holds it (or may take it). */
export async function campaignWorkspace(database: Database, q: { campaign: number | string; answerId: number }): Promise<WorkspaceSpec> {
  const campaign = await findCampaign(database.db, q.campaign);
  const [row] = await database.db
    .select({ reason: campaignAnswers.reason })
    .from(campaignAnswers)
    .where(and(eq(campaignAnswers.campaignId, campaign.id), eq(campaignAnswers.answerId, q.answerId)));
  if (!row) throw new AssayError('not_found', `campaign '${campaign.name}': answer ${q.answerId} is not in it`);
  return workspaceSpec(campaign.id, campaign.spec, row.reason);
}
