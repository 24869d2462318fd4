import { eq, sql } from 'drizzle-orm';
import type { LedgerAndCache } from '../judges/engine.ts';
import type { CachedResponse, LedgerEntry, ResponseCache, UsageLedger } from '../judges/store.ts';
import type { Queryable } from './client.ts';
import { judgeCache, usageLedger } from './schema.ts';

/**
 * The judge engine's cache and ledger over the judge_cache and usage_ledger tables. The engine only
 * sees the interfaces (src/judges/store.ts); this is the one place that knows the tables.
 */

// Statements run once per grade are built once and prepared (named) on PostgreSQL: no query building
// and no server-side parse per call.
export function dbResponseCache(db: Queryable): ResponseCache {
  const getQ = db
    .select({ response: judgeCache.response })
    .from(judgeCache)
    .where(eq(judgeCache.key, sql.placeholder('key')))
    .prepare('assay_cache_get');
  const setQ = db
    .insert(judgeCache)
    .values({ key: sql.placeholder('key'), response: sql.placeholder('response') })
    .onConflictDoNothing()
    .prepare('assay_cache_set');
  return {
    async get(key: string): Promise<CachedResponse | undefined> {
      const [row] = await getQ.execute({ key });
      return row ? (row.response as CachedResponse) : undefined;
    },
    async set(key: string, value: CachedResponse): Promise<void> {
      // Content-addressed: a concurrent writer stored the same response for the same key.
      await setQ.execute({ key, response: value });
    },
  };
}

const digitsOnly = (s: string | undefined): number | null => (s !== undefined && /^\d+$/.test(s) ? Number(s) : null);

/** `judgeId` is the judges row the calls are for; entry.answerId is the answers row id when known. */
export function dbUsageLedger(db: Queryable, opts: { judgeId: number | null }): UsageLedger {
  const ph = (name: string) => sql.placeholder(name);
  const insertQ = db
    .insert(usageLedger)
    .values({
      callKey: ph('callKey'),
      provider: ph('provider'),
      model: ph('model'),
      judgeId: ph('judgeId'),
      answerId: ph('answerId'),
      inputTokens: ph('inputTokens'),
      outputTokens: ph('outputTokens'),
      cacheReadTokens: ph('cacheReadTokens'),
      cacheWriteTokens: ph('cacheWriteTokens'),
      costUsd: ph('costUsd'),
      latencyMs: ph('latencyMs'),
      status: ph('status'),
    })
    .onConflictDoNothing()
    .prepare('assay_ledger_insert');
  return {
    async record(e: LedgerEntry): Promise<void> {
      await insertQ.execute({
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
      });
    },
  };
}

/**
 * The ok call's ledger row and cached verdict in one statement: both are written or neither, and it is
 * one round trip instead of two. Conflicts are skipped as in record() and set().
 */
export function dbLedgerAndCache(db: Queryable, opts: { judgeId: number | null }): LedgerAndCache {
  return {
    async recordAndCache(e: LedgerEntry, key: string, value: CachedResponse): Promise<void> {
      await db.execute(sql`
        with ledger as (
          insert into ${usageLedger} (call_key, provider, model, judge_id, answer_id, input_tokens, output_tokens,
            cache_read_tokens, cache_write_tokens, cost_usd, latency_ms, status)
          values (${e.callKey}, ${e.provider}, ${e.model}, ${opts.judgeId}::integer, ${digitsOnly(e.answerId)}::integer, ${e.usage.input}::integer,
            ${e.usage.output}::integer, ${e.usage.cacheRead}::integer, ${e.usage.cacheWrite}::integer, ${e.costUsd}::float8,
            ${Math.round(e.latencyMs)}::integer, ${e.status})
          on conflict do nothing
        )
        insert into ${judgeCache} (key, response) values (${key}, ${JSON.stringify(value)}::jsonb) on conflict do nothing`);
    },
  };
}
