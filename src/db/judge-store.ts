import { eq } from 'drizzle-orm';
import type { CachedResponse, LedgerEntry, ResponseCache, UsageLedger } from '../judges/store.ts';
import type { Queryable } from './client.ts';
import { judgeCache, usageLedger } from './schema.ts';

/**
 * The judge engine's cache and ledger over the judge_cache and usage_ledger tables. The engine only
 * sees the interfaces (src/judges/store.ts); this is the one place that knows the tables.
 */

export function dbResponseCache(db: Queryable): ResponseCache {
  return {
    async get(key: string): Promise<CachedResponse | undefined> {
      const [row] = await db.select({ response: judgeCache.response }).from(judgeCache).where(eq(judgeCache.key, key));
      return row ? (row.response as CachedResponse) : undefined;
    },
    async set(key: string, value: CachedResponse): Promise<void> {
      // Content-addressed: a concurrent writer stored the same response for the same key.
      await db.insert(judgeCache).values({ key, response: value }).onConflictDoNothing();
    },
  };
}

const digitsOnly = (s: string | undefined): number | null => (s !== undefined && /^\d+$/.test(s) ? Number(s) : null);

/** `judgeId` is the judges row the calls are for; entry.answerId is the answers row id when known. */
export function dbUsageLedger(db: Queryable, opts: { judgeId: number | null }): UsageLedger {
  return {
    async record(e: LedgerEntry): Promise<void> {
      await db
        .insert(usageLedger)
        .values({
          callKey: e.callKey,
          provider: e.provider,
          model: e.model,
          judgeId: opts.judgeId,
          answerId: digitsOnly(e.answerId),
          inputTokens: e.usage.input,
          outputTokens: e.usage.output,
          cacheReadTokens: e.usage.cacheRead,
          cacheWriteTokens: e.usage.cacheWrite,
          costUsd: e.costUsd,
          latencyMs: Math.round(e.latencyMs),
          status: e.status,
        })
        .onConflictDoNothing();
    },
  };
}
