import { sql } from 'drizzle-orm';
import type { LedgerAndCache } from '../judges/engine.ts';
import type { CachedResponse, LedgerEntry, ResponseCache, UsageLedger } from '../judges/store.ts';
import type { Database, Queryable } from './client.ts';
import { type GroupOptions, groupCommit } from './group-commit.ts';
import { judgeCache, usageLedger } from './schema.ts';

/**
 * The judge engine's cache and ledger over the judge_cache and usage_ledger tables. The engine only
 * sees the interfaces (src/judges/store.ts); this is the one place that knows the tables.
 */

// Every grade reads the cache once and, on a paid call, writes a ledger row and a cache entry: both go
// through group commit (group-commit.ts), so concurrent jobs share one prepared statement per batch.
const CACHE_GET = `select key, response from judge_cache where key in (select jsonb_array_elements_text($1::jsonb))`;

export function dbResponseCache(database: Database, group: GroupOptions = {}): ResponseCache {
  const setQ = database.db
    .insert(judgeCache)
    .values({ key: sql.placeholder('key'), response: sql.placeholder('response') })
    .onConflictDoNothing()
    .prepare('assay_cache_set');
  const get = groupCommit(async (keys: string[]) => {
    const r = await database.execute(CACHE_GET, [JSON.stringify([...new Set(keys)])], { prepare: true });
    const found = new Map(r.rows.map((row) => [row.key as string, row.response as CachedResponse]));
    return keys.map((k) => found.get(k));
  }, group);
  return {
    get,
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

const RECORD_AND_CACHE = `
  with input as (
    select * from jsonb_to_recordset($1::jsonb) as t(k int, call_key text, provider text, model text, judge_id int, answer_id int,
      input_tokens int, output_tokens int, cache_read_tokens int, cache_write_tokens int, cost_usd float8, latency_ms int, status text,
      key text, response jsonb)
  ),
  ledger as (
    insert into usage_ledger (call_key, provider, model, judge_id, answer_id, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens, cost_usd, latency_ms, status)
    select call_key, provider, model, judge_id, answer_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
      cost_usd, latency_ms, status from input order by k
    on conflict do nothing
  )
  insert into judge_cache (key, response) select distinct on (key) key, response from input order by key, k on conflict do nothing`;

/**
 * The ok call's ledger row and cached verdict in one statement: both are written or neither, and it is
 * one round trip instead of two (shared with the other jobs finishing at the same time). Conflicts are
 * skipped as in record() and set().
 */
export function dbLedgerAndCache(database: Database, opts: { judgeId: number | null }, group: GroupOptions = {}): LedgerAndCache {
  const write = groupCommit(async (rows: Array<{ e: LedgerEntry; key: string; value: CachedResponse }>) => {
    const input = rows.map(({ e, key, value }, k) => ({
      k,
      call_key: e.callKey,
      provider: e.provider,
      model: e.model,
      judge_id: opts.judgeId,
      answer_id: digitsOnly(e.answerId),
      input_tokens: e.usage.input,
      output_tokens: e.usage.output,
      cache_read_tokens: e.usage.cacheRead,
      cache_write_tokens: e.usage.cacheWrite,
      cost_usd: e.costUsd,
      latency_ms: Math.round(e.latencyMs),
      status: e.status,
      key,
      response: value,
    }));
    await database.execute(RECORD_AND_CACHE, [JSON.stringify(input)], { prepare: true });
    return rows.map(() => undefined);
  }, group);
  return {
    async recordAndCache(e: LedgerEntry, key: string, value: CachedResponse): Promise<void> {
      await write({ e, key, value });
    },
  };
}
