import { and, inArray, ne } from 'drizzle-orm';
import type { Database, Queryable } from '../../db/client.ts';
import { ledgerStatus } from '../../db/judge-store.ts';
import { answers, usageLedger } from '../../db/schema.ts';
import { costUsd, type PriceTable } from '../../judges/prices.ts';
import type { TokenUsage } from '../../judges/types.ts';

/**
 * The usage ledger of `assay run --batch` (batch.ts): each batch line the provider answered is one row,
 * under a key of the batch and the line's custom id. The grade that uses the line settles that row
 * (Judge.sharedCallKey), so answers of one request (twins: one line) count it once, whatever their
 * status; a line no grade used — the answer or its rubric changed, the answer was graded meanwhile or
 * deleted, the verdict came from the cache — is written as `discarded` when its batch is reconciled:
 * it was paid for all the same. A key is written once, so collecting a batch again adds nothing.
 */

export const batchLineKey = (providerBatchId: string, customId: string): string => `batch:${providerBatchId}:${customId}`;

/** Those of `keys` whose row is settled (a pending one was begun by a grade a crash cut short: it settles it again). */
export async function settledKeys(database: Database, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await database.db.select({ k: usageLedger.callKey }).from(usageLedger).where(and(inArray(usageLedger.callKey, keys), ne(usageLedger.status, 'pending')));
  return rows.map((r) => r.k);
}

export interface PaidLine {
  callKey: string;
  answerId: number;
  /** Null: the result carried no usage figures (the row's cost is unknown, not $0). */
  usage: TokenUsage | null;
}

/** Those of `ids` that are answers still (one may be deleted while its batch runs). */
export async function existingAnswers(q: Queryable, ids: number[]): Promise<Set<number>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Set();
  return new Set((await q.select({ id: answers.id }).from(answers).where(inArray(answers.id, unique))).map((r) => r.id));
}

/** A row for every paid line without one; the answer is kept only while it exists (a deleted one: none). */
export async function recordDiscardedLines(q: Queryable, who: { provider: string; model: string; judgeId: number; prices: PriceTable }, lines: PaidLine[]): Promise<void> {
  if (lines.length === 0) return;
  const existing = await existingAnswers(q, lines.map((l) => l.answerId));
  const now = new Date();
  await q
    .insert(usageLedger)
    .values(
      lines.map((l) => ({
        callKey: l.callKey,
        provider: who.provider,
        model: who.model,
        judgeId: who.judgeId,
        answerId: existing.has(l.answerId) ? l.answerId : null,
        // No figures: 0 in the NOT NULL columns, cost null and the status saying why (judge-store.ts ledgerStatus).
        inputTokens: l.usage?.input ?? 0,
        outputTokens: l.usage?.output ?? 0,
        cacheReadTokens: l.usage?.cacheRead ?? 0,
        cacheWriteTokens: l.usage?.cacheWrite ?? 0,
        costUsd: l.usage ? costUsd(who.prices, who.model, l.usage) : null,
        latencyMs: 0,
        status: ledgerStatus({ status: 'discarded', ...(l.usage ? {} : { usageUnknown: 'no_usage' as const }) }),
        settledAt: now,
      })),
    )
    .onConflictDoNothing({ target: usageLedger.callKey });
}
