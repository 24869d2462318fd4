import { eq, sql } from 'drizzle-orm';
import { providerBatches } from '../../db/schema.ts';
import { existingAnswers } from './batch-ledger.ts';
import { customIdFor, fingerprintOf, requestFingerprint, sentEntries } from './batch-ids.ts';
import { type BatchContext, itemFor, rubricReader } from './batch-context.ts';

/**
 * Submitting an intent row of `assay run --batch` (batch.ts): an intent older than this call is first
 * looked for among the provider's recent batches (OpenAI: metadata.assay_intent; Anthropic, whose list
 * has no metadata: a batch created after the intent, with the same request count, claimed by no other
 * row), so a crash between create and recording the id does not pay twice; otherwise it is created now.
 */

type Row = typeof providerBatches.$inferSelect;

/** The provider batch an older intent row already made (a crash before its id was stored), or null. */
async function reconcile(ctx: BatchContext, row: Row): Promise<string | null> {
  const { database, client } = ctx;
  const listed = await client.list(new Date(row.createdAt.getTime() - ctx.skewMs));
  const claimed = new Set(
    (await database.db.select({ id: providerBatches.providerBatchId }).from(providerBatches).where(sql`${providerBatches.providerBatchId} is not null`)).map((r) => r.id),
  );
  const n = sentEntries(row.customIds).length;
  const mine = listed
    // Where batches carry our intent, one without it (made by something else on the key) is never ours.
    .filter((b) => !claimed.has(b.id) && (client.keepsIntent || b.intent !== null ? b.intent === String(row.id) : b.total === n))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return mine[0]?.id ?? null;
}

/** The provider batch of an intent row: adopted, or created now; null when no answer of it is left to send. */
export async function submit(ctx: BatchContext, row: Row): Promise<string | null> {
  const { database, judge, out } = ctx;
  const adopted = ctx.freshRows.has(row.id) ? null : await reconcile(ctx, row);
  if (adopted) {
    out.adopted++;
    return adopted;
  }
  await ctx.hooks?.afterIntent?.(row.id);
  // Answers deleted since the intent was written (a restart hours later) are not sent: building their
  // requests would stop this run, and every later one, on 'answer not found'.
  const present = await existingAnswers(database.db, Object.values(row.customIds));
  if (Object.values(row.customIds).some((id) => !present.has(id))) {
    row.customIds = Object.fromEntries(Object.entries(row.customIds).filter(([, id]) => present.has(id)));
    await database.db.update(providerBatches).set({ customIds: row.customIds, updatedAt: new Date() }).where(eq(providerBatches.id, row.id));
    if (Object.keys(row.customIds).length === 0) return null;
  }
  const rubrics = rubricReader(database);
  const entries = Object.entries(row.customIds);
  let items = await Promise.all(entries.map(([cid, id]) => itemFor(ctx, cid, id, rubrics)));
  // An intent written before its answer or rubric changed (a restart hours later): its custom ids are
  // made to say what is sent, before anything is sent.
  const relabelled = items.map((it, k) => {
    const fp = requestFingerprint(it.req);
    return fingerprintOf(it.customId) === fp ? it : { ...it, customId: customIdFor(judge.configHash, entries[k]![1], row.attempt, fp) };
  });
  if (relabelled.some((it, k) => it !== items[k])) {
    row.customIds = Object.fromEntries(relabelled.map((it, k) => [it.customId, entries[k]![1]]));
    await database.db.update(providerBatches).set({ customIds: row.customIds, updatedAt: new Date() }).where(eq(providerBatches.id, row.id));
    items = relabelled;
  }
  const sent = new Set(sentEntries(row.customIds).map(([cid]) => cid));
  const id = await ctx.client.create(items.filter((it) => sent.has(it.customId)), String(row.id));
  out.created++;
  await ctx.hooks?.afterCreate?.(row.id, id);
  return id;
}
