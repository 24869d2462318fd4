import { sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { campaignAssignments } from '../../db/schema.ts';
import type { QueueReason } from '../../domain/campaigns.ts';
import { AssayError } from '../../domain/errors.ts';
import type { Campaign } from './load.ts';
import { rowsOf } from './sql.ts';

/**
 * Taking a slot of a campaign answer, safely under concurrency. The k slots of an answer are counted by
 * `campaign_answers.assigned`, raised only by an UPDATE that re-checks `assigned < k`: two annotators
 * racing for the last slot both lock the row, and the second's condition is re-evaluated on the row the
 * first committed (PostgreSQL's READ COMMITTED re-check of an updated row), so it takes nothing. One
 * annotator's own fetches are serialised by a transaction-scoped advisory lock, so two tabs of one
 * person cannot take one answer twice.
 */

export interface Slot {
  answerId: number;
  rank: number;
  reason: QueueReason;
}

/** Serialises this annotator's queue operations in this campaign until the transaction ends. */
export async function lockAnnotator(tx: Queryable, campaign: Campaign, annotator: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${campaign.id}::int, hashtext(${annotator}))`);
}

async function record(tx: Queryable, campaign: Campaign, annotator: string, slot: Slot | undefined): Promise<Slot | null> {
  if (!slot) return null;
  await tx.insert(campaignAssignments).values({ campaignId: campaign.id, answerId: slot.answerId, annotator });
  return { answerId: Number(slot.answerId), rank: Number(slot.rank), reason: slot.reason };
}

/**
 * The first answer in queue order this annotator does not hold and that has fewer than k holders;
 * rows another transaction is taking right now are skipped, not waited for.
 */
export async function takeNextSlot(tx: Queryable, campaign: Campaign, annotator: string): Promise<Slot | null> {
  const [slot] = await rowsOf<Slot>(
    tx,
    sql`update campaign_answers ca set assigned = ca.assigned + 1
          from (select c2.campaign_id, c2.answer_id from campaign_answers c2
                 where c2.campaign_id = ${campaign.id} and c2.assigned < ${campaign.overlap}
                   and not exists (select 1 from campaign_assignments x
                                    where x.campaign_id = c2.campaign_id and x.answer_id = c2.answer_id and x.annotator = ${annotator})
                 order by c2.rank limit 1 for update skip locked) pick
         where ca.campaign_id = pick.campaign_id and ca.answer_id = pick.answer_id and ca.assigned < ${campaign.overlap}
        returning ca.answer_id as "answerId", ca.rank, ca.reason`,
  );
  return record(tx, campaign, annotator, slot);
}

/** A slot of one given answer (an annotator labelling an answer they were not served); conflict when k hold it. */
export async function takeSlotOf(tx: Queryable, campaign: Campaign, annotator: string, answerId: number): Promise<Slot> {
  const [slot] = await rowsOf<Slot>(
    tx,
    sql`update campaign_answers ca set assigned = ca.assigned + 1
         where ca.campaign_id = ${campaign.id} and ca.answer_id = ${answerId} and ca.assigned < ${campaign.overlap}
        returning ca.answer_id as "answerId", ca.rank, ca.reason`,
  );
  const taken = await record(tx, campaign, annotator, slot);
  if (!taken) throw new AssayError('conflict', `campaign '${campaign.name}': answer ${answerId} already has its ${campaign.overlap} annotator(s)`);
  return taken;
}
