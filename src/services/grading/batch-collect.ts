import { eq } from 'drizzle-orm';
import { providerBatches } from '../../db/schema.ts';
import type { BatchItemResult } from '../../judges/batch/types.ts';
import { ProviderCallError } from '../../judges/types.ts';
import { batchLineKey, existingAnswers, recordDiscardedLines, settledKeys } from './batch-ledger.ts';
import { customIdFor, fingerprintOf, requestFingerprint } from './batch-ids.ts';
import { type BatchContext, itemFor, rubricReader, tally } from './batch-context.ts';
import { answersNeedingGrade } from './needs-grading.ts';

/**
 * Collecting an ended provider batch of `assay run --batch` (batch.ts). Results are matched by custom_id,
 * never by order; errored / expired / canceled / missing items are resubmitted once (attempt 2), then graded
 * as provider_error. A custom_id carries the fingerprint of its request: a result whose answer or rubric
 * changed while it was in the batch is not stored; the item is asked again as it is now. Grades go through
 * the same engine path as live calls (parse, validate, score, upsert per answer × judge).
 */

type Row = typeof providerBatches.$inferSelect;

/**
 * A batch the provider answers 404 for (results past their retention, a key of another account) will
 * never come back: its items are missing, so they are asked again once, rather than every run stopping
 * on it. Any other failure is thrown (the next run polls again).
 */
export function goneReason(e: unknown, batchId: string): string | null {
  return e instanceof ProviderCallError && e.status === 404 ? `batch ${batchId} is no longer at the provider (${e.message})` : null;
}

/** `lost`: why the batch's results are gone, or what the provider said of the batch (the reason of a missing item). */
export async function collect(ctx: BatchContext, row: Row, batchId: string, lost: string | null): Promise<void> {
  const { database, judge, run, judgeId, session, out } = ctx;
  const cfg = judge.config;
  const { replies, settledLines } = ctx.batch;
  const results = new Map<string, BatchItemResult>();
  let fetched: BatchItemResult[] = [];
  if (lost === null) {
    try {
      const r = await ctx.client.results(batchId);
      fetched = r.items;
      lost = r.problem;
    } catch (e) {
      lost = goneReason(e, batchId);
      if (lost === null) throw e;
    }
  }
  // Only our custom_ids count: an adopted Anthropic batch that is not ours contributes nothing.
  // An item named twice keeps its first success: a later error line for it does not buy it again.
  for (const r of fetched) if (Object.hasOwn(row.customIds, r.customId) && !results.get(r.customId)?.ok) results.set(r.customId, r);
  const lineKeys = new Map([...results.values()].flatMap((r) => (r.ok ? [[r.customId, batchLineKey(batchId, r.customId)] as const] : [])));
  for (const k of await settledKeys(database, [...lineKeys.values()])) settledLines.add(k);
  // An answer whose request was not sent (another answer's, of the same fingerprint, was) takes its result.
  const byFingerprint = new Map<string, BatchItemResult>();
  for (const [cid, r] of results) {
    const fp = fingerprintOf(cid);
    if (fp !== null && !byFingerprint.get(fp)?.ok) byFingerprint.set(fp, r);
  }
  // attempt → custom id → answer: failed items once more (attempt 2); a result of a request that no
  // longer matches the answer or its rubric is a verdict on something else, so that item is asked again
  // as it is now, keeping its attempt.
  const again: Record<number, Record<string, number>> = {};
  // Only an answer still without a final grade is asked again (the queue or a live grade may have
  // given it one while the batch ran; a crash may have come after its grade was stored).
  const open = new Set(await answersNeedingGrade(database.db, run.id, judgeId));
  const rubricsNow = rubricReader(database);
  const fingerprintNow = async (answerId: number) => requestFingerprint((await itemFor(ctx, '', answerId, rubricsNow)).req);
  const askAgain = async (answerId: number, attempt: number) => ((again[attempt] ??= {})[customIdFor(judge.configHash, answerId, attempt, await fingerprintNow(answerId))] = answerId);
  // An answer deleted while its batch ran gets no grade (its line is recorded as discarded below): it
  // must not stop the collection of the others, at every later run too.
  const present = await existingAnswers(database.db, Object.values(row.customIds));
  for (const [cid, answerId] of Object.entries(row.customIds)) {
    if (!present.has(answerId)) continue;
    const fp = fingerprintOf(cid);
    const r = results.get(cid) ?? (fp === null ? undefined : byFingerprint.get(fp));
    if (!r?.ok && row.attempt === 1 && open.has(answerId)) {
      await askAgain(answerId, 2);
      continue;
    }
    const sent = fp;
    if (r?.ok && open.has(answerId) && sent !== null && sent !== (await fingerprintNow(answerId))) {
      await askAgain(answerId, row.attempt);
      continue;
    }
    replies.set(answerId, r?.ok ? { reply: r.reply, fingerprint: sent, callKey: lineKeys.get(r.customId)! } : `batch item ${r ? r.kind : 'missing'} after resubmission${r ? `: ${r.error}` : lost ? `: ${lost}` : ''}`);
    // As a queued job does: an answer this judge already gave a final grade (this batch's, stored before a
    // crash; the queue's) keeps it, cost and tokens included; one that no longer qualifies gets none.
    const g = await session.gradeQueued(answerId);
    replies.delete(answerId);
    if (g === 'already graded') out.graded++;
    else if (typeof g !== 'string') tally(out, g);
  }
  // Every paid line, used or not, is one ledger row: those no grade settled (a result of a request that
  // changed, for an answer graded meanwhile or deleted) are recorded as discarded, with the reconciliation.
  const paid = [...results.values()].flatMap((r) => (r.ok ? [{ callKey: lineKeys.get(r.customId)!, answerId: row.customIds[r.customId]!, usage: r.reply.usage }] : []));
  await database.db.transaction(async (tx) => {
    await recordDiscardedLines(tx, { provider: cfg.provider, model: cfg.model, judgeId, prices: ctx.discounted }, paid);
    for (const [attempt, customIds] of Object.entries(again)) {
      const [r] = await tx.insert(providerBatches).values({ runId: run.id, judgeId, provider: cfg.provider, customIds, attempt: Number(attempt) }).returning({ id: providerBatches.id });
      ctx.freshRows.add(r!.id);
    }
    await tx.update(providerBatches).set({ state: 'reconciled', updatedAt: new Date() }).where(eq(providerBatches.id, row.id));
  });
  out.resubmitted += Object.values(again).reduce((n, ids) => n + Object.keys(ids).length, 0);
}
