import { sql } from 'drizzle-orm';
import { rowIdProblem } from '../domain/limits.ts';
import type { LedgerAndCache } from '../judges/engine.ts';
import type { CachedResponse, JobLease, LedgerEntry, ResponseCache, UsageLedger } from '../judges/store.ts';
import type { Database } from './client.ts';
import { type GroupOptions, groupCommit } from './group-commit.ts';
import { judgeCache } from './schema.ts';

/**
 * The judge engine's cache and ledger over the judge_cache and usage_ledger tables. The engine only
 * sees the interfaces (src/judges/store.ts); this is the one place that knows the tables.
 */

// Every grade reads the cache once and, on a paid call, writes a ledger row and a cache entry: both go
// through group commit (group-commit.ts), so concurrent jobs share one prepared statement per batch.
const CACHE_GET = `select key, response from judge_cache where key in (select jsonb_array_elements_text($1::jsonb))`;
// Content-addressed, so a concurrent writer's entry for the key is kept, except one checked under older
// reply rules (src/judges/reply-rules.ts): the engine treats that as a miss, and keeping it would make
// every later grade of the key a paid call again.
const STALE_ENTRY = `coalesce(judge_cache.response->'replyRules', '0') < coalesce(excluded.response->'replyRules', '0')`;
const CACHE_UPSERT = `on conflict (key) do update set response = excluded.response, created_at = now() where ${STALE_ENTRY}`;

export function dbResponseCache(database: Database, group: GroupOptions = {}): ResponseCache {
  const setQ = database.db
    .insert(judgeCache)
    .values({ key: sql.placeholder('key'), response: sql.placeholder('response') })
    .onConflictDoUpdate({ target: judgeCache.key, set: { response: sql`excluded.response`, createdAt: sql`now()` }, setWhere: sql.raw(STALE_ENTRY) })
    .prepare('assay_cache_set');
  const get = groupCommit(async (keys: string[]) => {
    const r = await database.execute(CACHE_GET, [JSON.stringify([...new Set(keys)])], { prepare: true });
    const found = new Map(r.rows.map((row) => [row.key as string, row.response as CachedResponse]));
    return keys.map((k) => found.get(k));
  }, group);
  return {
    get,
    async set(key: string, value: CachedResponse): Promise<void> {
      await setQ.execute({ key, response: value });
    },
  };
}

/** The stored answer a call was for: an answer id that is a row id, else none (an ad-hoc text). */
const answerRowId = (s: string | undefined): number | null => (s !== undefined && rowIdProblem(s) === null ? Number(s) : null);

/** Who the ledger rows are for: the judges row, and the worker process making the calls (if any). */
export interface LedgerOwner {
  judgeId: number | null;
  workerId?: string | null;
}

/**
 * The stored status of a ledger row. usage_ledger has no column for "tokens unknown" (the token columns are
 * NOT NULL, and no migration adds one), so a call of unknown usage is `<outcome>:<reason>`: its outcome
 * (ok, retryable_error, …) and why its figures are unknown (timeout | aborted | no_usage), with cost_usd
 * null and the token columns holding the pending estimate, an upper bound. Totals leave such a row's
 * tokens and cost out and count it as a call of unknown cost (services/grading/progress.ts).
 */
export const ledgerStatus = (e: Pick<LedgerEntry, 'status' | 'usageUnknown'>): string => (e.usageUnknown ? `${e.status}:${e.usageUnknown}` : e.status);

const LEDGER_COLUMNS = `call_key, provider, model, judge_id, answer_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, latency_ms, status, worker_id`;
const LEDGER_TYPES = `k int, call_key text, provider text, model text, judge_id int, answer_id int, input_tokens int, output_tokens int,
  cache_read_tokens int, cache_write_tokens int, cost_usd float8, latency_ms int, status text, worker_id text`;
// A settled row is final; only a pending one takes the call's outcome (a second settle changes nothing).
const SETTLE = `on conflict (call_key) do update set input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
  cache_read_tokens = excluded.cache_read_tokens, cache_write_tokens = excluded.cache_write_tokens, cost_usd = excluded.cost_usd,
  latency_ms = excluded.latency_ms, status = excluded.status, settled_at = now() where usage_ledger.status = 'pending'`;

const ledgerRow = (e: LedgerEntry, owner: LedgerOwner, k: number) => ({
  k,
  call_key: e.callKey,
  provider: e.provider,
  model: e.model,
  judge_id: owner.judgeId,
  answer_id: answerRowId(e.answerId),
  input_tokens: e.usage.input,
  output_tokens: e.usage.output,
  cache_read_tokens: e.usage.cacheRead,
  cache_write_tokens: e.usage.cacheWrite,
  cost_usd: e.costUsd,
  latency_ms: Math.round(e.latencyMs),
  status: ledgerStatus(e),
  worker_id: owner.workerId ?? null,
});

const BEGIN = `insert into usage_ledger (${LEDGER_COLUMNS}) select ${LEDGER_COLUMNS} from jsonb_to_recordset($1::jsonb) as t(${LEDGER_TYPES}) order by k on conflict do nothing`;
// Under a lease the row is written only while the job is still active under this fetch of it. No row
// lock (it halved the bench's throughput): a begin racing a takeover reads the job as it was when the
// statement started, which is the same as a call begun just before the takeover (in flight at it).
const BEGIN_LEASED = `
  insert into usage_ledger (${LEDGER_COLUMNS})
  select ${LEDGER_COLUMNS} from jsonb_to_recordset($1::jsonb) as t(${LEDGER_TYPES}, queue text, job_id uuid, token int)
  where exists (select 1 from pgboss.job j where j.name = t.queue and j.id = t.job_id and j.state = 'active' and j.retry_count = t.token)
  order by k on conflict do nothing returning call_key`;
// The cache lookup and the pending write in one statement: a hit writes nothing and returns the verdict.
const beginUnlessCachedSql = (leased: boolean) => `
  with input as materialized (
    select * from jsonb_to_recordset($1::jsonb) as t(${LEDGER_TYPES}, cache_key text${leased ? ', queue text, job_id uuid, token int' : ''})
  ),
  hit as (select i.k, c.response from input i join judge_cache c on c.key = i.cache_key),
  ins as (
    insert into usage_ledger (${LEDGER_COLUMNS})
    select ${LEDGER_COLUMNS} from input t where not exists (select 1 from hit where hit.k = t.k)
      ${leased ? 'and exists (select 1 from pgboss.job j where j.name = t.queue and j.id = t.job_id and j.state = \'active\' and j.retry_count = t.token)' : ''}
    order by k on conflict do nothing returning call_key
  )
  select k, response, null::text as call_key from hit union all select null::int, null::jsonb, call_key from ins`;
const BEGIN_UNLESS_CACHED = beginUnlessCachedSql(false);
const BEGIN_UNLESS_CACHED_LEASED = beginUnlessCachedSql(true);

const RECORD = `insert into usage_ledger (${LEDGER_COLUMNS}) select ${LEDGER_COLUMNS} from jsonb_to_recordset($1::jsonb) as t(${LEDGER_TYPES}) order by k ${SETTLE}`;

/**
 * The ledger over usage_ledger: `begin` writes the pending row before a call, `record` settles it.
 * Both are group commits, so the calls a worker starts or finishes together share a statement; only
 * the settle takes `settleGroup` (a linger), since a call waits for its begin.
 */
export function dbUsageLedger(database: Database, owner: LedgerOwner, settleGroup: GroupOptions = {}): UsageLedger {
  const begin = groupCommit(async (items: Array<{ e: LedgerEntry; lease: JobLease | undefined }>) => {
    const plain = items.flatMap((x, k) => (x.lease ? [] : [ledgerRow(x.e, owner, k)]));
    const leased = items.flatMap((x, k) => (x.lease ? [{ ...ledgerRow(x.e, owner, k), queue: x.lease.queue, job_id: x.lease.jobId, token: x.lease.token }] : []));
    if (plain.length) await database.execute(BEGIN, [JSON.stringify(plain)], { prepare: true });
    const held = new Set<string>();
    if (leased.length) {
      const r = await database.execute(BEGIN_LEASED, [JSON.stringify(leased)], { prepare: true });
      for (const row of r.rows) held.add(String(row.call_key));
    }
    return items.map((x) => !x.lease || held.has(x.e.callKey));
  });
  const record = groupCommit(async (entries: LedgerEntry[]) => {
    await database.execute(RECORD, [JSON.stringify(entries.map((e, k) => ledgerRow(e, owner, k)))], { prepare: true });
    return entries.map(() => undefined);
  }, settleGroup);
  type Lookup = { key: string; e: LedgerEntry; lease: JobLease | undefined };
  const lookup = groupCommit(async (items: Lookup[]) => {
    const out: Array<{ hit: CachedResponse } | { begun: boolean }> = items.map(() => ({ begun: false }));
    for (const leased of [false, true]) {
      const input = items.flatMap((x, k) =>
        Boolean(x.lease) !== leased ? [] : [{ ...ledgerRow(x.e, owner, k), cache_key: x.key, ...(x.lease ? { queue: x.lease.queue, job_id: x.lease.jobId, token: x.lease.token } : {}) }],
      );
      if (input.length === 0) continue;
      const r = await database.execute(leased ? BEGIN_UNLESS_CACHED_LEASED : BEGIN_UNLESS_CACHED, [JSON.stringify(input)], { prepare: true });
      const begun = new Set<string>();
      for (const row of r.rows) {
        if (row.call_key != null) begun.add(String(row.call_key));
        else out[Number(row.k)] = { hit: row.response as CachedResponse };
      }
      for (const { k } of input) if (!('hit' in out[k]!)) out[k] = { begun: !leased || begun.has(items[k]!.e.callKey) };
    }
    return out;
  });
  return {
    begin: (e, lease) => begin({ e, lease }),
    record,
    beginUnlessCached: (key, e, lease) => lookup({ key, e, lease }),
  };
}

// The ok call's settle and its cached verdict: one statement, so both are written or neither.
const RECORD_AND_CACHE = `
  with input as (
    select * from jsonb_to_recordset($1::jsonb) as t(${LEDGER_TYPES}, key text, response jsonb)
  ),
  ledger as (
    insert into usage_ledger (${LEDGER_COLUMNS})
    select ${LEDGER_COLUMNS} from input order by k
    ${SETTLE}
  )
  insert into judge_cache (key, response) select distinct on (key) key, response from input order by key, k ${CACHE_UPSERT}`;

/**
 * The ok call's ledger settle and cached verdict in one statement: both are written or neither, and it
 * is one round trip instead of two (shared with the other jobs finishing at the same time).
 */
export function dbLedgerAndCache(database: Database, owner: LedgerOwner, group: GroupOptions = {}): LedgerAndCache {
  const write = groupCommit(async (rows: Array<{ e: LedgerEntry; key: string; value: CachedResponse }>) => {
    const input = rows.map(({ e, key, value }, k) => ({ ...ledgerRow(e, owner, k), key, response: value }));
    await database.execute(RECORD_AND_CACHE, [JSON.stringify(input)], { prepare: true });
    return rows.map(() => undefined);
  }, group);
  return {
    async recordAndCache(e: LedgerEntry, key: string, value: CachedResponse): Promise<void> {
      await write({ e, key, value });
    },
  };
}
