import type { Database } from '../db/client.ts';
import { badInput } from '../domain/errors.ts';
import { type Judge, type JudgeRequest, ProviderCallError } from '../judges/types.ts';
import type { CallGate } from '../judges/engine.ts';

/**
 * Rate limits shared by every worker through one row per provider:model (table rate_limits): two
 * token buckets (requests and tokens per minute) refilled continuously and spent in one atomic UPDATE,
 * so N workers on M machines together stay under the account's limits. A 429 sets cooldown_until,
 * which every worker honours before its next call: one throttled worker slows the whole pool.
 */

/** Per limit: a number sets it, null clears it (no limit), absent keeps what is stored. */
export interface Limits {
  rpm?: number | null;
  tpm?: number | null;
}

export interface RateLimiter {
  /** Waits until one request of `tokens` estimated tokens fits in both buckets and no cool-down runs. */
  acquire(tokens: number): Promise<void>;
  /** A 429: nobody calls this provider:model until `ms` from now. */
  coolDown(ms: number): Promise<void>;
}

export const limitKey = (provider: string, model: string): string => `${provider}:${model}`;

/**
 * A limit that can be spent: the request bucket holds at most rpm requests and a call takes a whole one,
 * so an rpm under 1 would hold every worker's calls for good; a call's tokens are capped at tpm, so any
 * positive tpm passes calls.
 */
export function limitProblem(limits: Limits): string | null {
  const bad = (v: number | null | undefined, min: number) => v != null && !(Number.isFinite(v) && v >= min);
  if (bad(limits.rpm, 1)) return `rpm must be a number of at least 1 (requests per minute), got ${limits.rpm}`;
  if (bad(limits.tpm, Number.MIN_VALUE)) return `tpm must be a positive number (tokens per minute), got ${limits.tpm}`;
  return null;
}

/**
 * Sets (a number) or clears (null) each limit all workers apply to provider:model; a limit left out keeps
 * the stored one, so `--rpm N` alone does not drop a tpm set earlier. A limit no call could pass is refused.
 */
export async function setLimits(database: Database, key: string, limits: Limits): Promise<void> {
  const problem = limitProblem(limits);
  if (problem) throw badInput(problem);
  await database.execute(
    `insert into rate_limits (key, rpm, tpm, requests, tokens) values ($1, $2::float8, $3::float8, coalesce($2::float8, 0), coalesce($3::float8, 0))
     on conflict (key) do update set rpm = case when $4::boolean then excluded.rpm else rate_limits.rpm end,
       tpm = case when $5::boolean then excluded.tpm else rate_limits.tpm end`,
    [key, limits.rpm ?? null, limits.tpm ?? null, limits.rpm !== undefined, limits.tpm !== undefined],
  );
}

// Refill since updated_at, capped at one minute's worth; spend only when both buckets cover the cost.
const SPEND = `
  with cur as (
    select key,
      case when rpm is null then null else least(rpm, requests + rpm * extract(epoch from clock_timestamp() - updated_at) / 60) end as req,
      case when tpm is null then null else least(tpm, tokens + tpm * extract(epoch from clock_timestamp() - updated_at) / 60) end as tok,
      rpm, tpm, cooldown_until
    from rate_limits where key = $1 for update
  )
  update rate_limits r set
    requests = coalesce(cur.req - 1, 0),
    tokens = coalesce(cur.tok - least($2::float8, cur.tpm), 0),
    updated_at = clock_timestamp()
  from cur
  where r.key = cur.key and cur.cooldown_until <= clock_timestamp()
    and (cur.req is null or cur.req >= 1) and (cur.tok is null or cur.tok >= least($2::float8, cur.tpm))
  returning r.key`;

const WAIT = `
  select greatest(
    extract(epoch from cooldown_until - clock_timestamp()),
    case when rpm is null then 0 else (1 - least(rpm, requests + rpm * extract(epoch from clock_timestamp() - updated_at) / 60)) * 60 / rpm end,
    case when tpm is null then 0 else (least($2::float8, tpm) - least(tpm, tokens + tpm * extract(epoch from clock_timestamp() - updated_at) / 60)) * 60 / tpm end
  ) as wait_s
  from rate_limits where key = $1`;

/** How long a worker trusts its last read of an unlimited row (only a cool-down can change it). */
const REFRESH_MS = 250;
/** From this age on, a call starts a newer read in the background, so busy workers rarely wait for one. */
const RENEW_MS = 150;

const READ = `select rpm is not null or tpm is not null as limited, (extract(epoch from cooldown_until) * 1000)::float8 as cd,
  (extract(epoch from clock_timestamp()) * 1000)::float8 as now from rate_limits where key = $1`;

export function dbRateLimiter(database: Database, key: string, sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)), clock = Date.now): RateLimiter {
  // Without rpm/tpm there is nothing to spend: a fresh-enough read of cooldown_until is all a call needs,
  // which keeps the unlimited case to one query per REFRESH_MS per worker instead of one per call. The
  // read is shared by every call waiting for it, and renewed behind the calls before it expires.
  let seen: { at: number; limited: boolean; cooldownUntil: number } | null = null;
  let created = false;
  let reading: Promise<void> | null = null;
  const read = async () => {
    if (!created) {
      await database.execute(`insert into rate_limits (key) values ($1) on conflict do nothing`, [key]);
      created = true;
    }
    const row = (await database.execute(READ, [key], { prepare: true })).rows[0];
    // Cool-downs are compared on the database clock, translated to this machine's.
    seen = { at: clock(), limited: Boolean(row?.limited), cooldownUntil: clock() + (Number(row?.cd ?? 0) - Number(row?.now ?? 0)) };
  };
  const refresh = (): Promise<void> => (reading ??= read().finally(() => (reading = null)));
  return {
    async acquire(tokens) {
      for (;;) {
        const age = seen ? clock() - seen.at : Infinity;
        if (age > REFRESH_MS) await refresh();
        else if (age > RENEW_MS) void refresh().catch(() => {});
        const s = seen!;
        if (s.limited) break;
        const wait = s.cooldownUntil - clock();
        if (wait <= 0) return;
        await sleep(Math.min(1000, Math.max(10, wait)));
        seen = null;
      }
      for (;;) {
        const spent = await database.execute(SPEND, [key, tokens], { prepare: true });
        if (spent.rows.length) return;
        const w = await database.execute(WAIT, [key, tokens], { prepare: true });
        const waitS = Number(w.rows[0]?.wait_s ?? 0.05);
        // Short naps: another worker may spend first, and a cool-down may be lifted by nobody but time.
        await sleep(Math.min(1000, Math.max(10, Math.ceil(waitS * 1000))));
      }
    },
    async coolDown(ms) {
      await database.execute(
        `update rate_limits set cooldown_until = greatest(cooldown_until, clock_timestamp() + $2::float8 * interval '1 millisecond'), throttled = throttled + 1 where key = $1`,
        [key, ms],
      );
      seen = null;
    },
  };
}

/** Rough input size of a request (≈ 4 characters a token) plus the output budget. */
export function estimateTokens(req: JudgeRequest, maxTokens: number): number {
  const p = req.prompt;
  return Math.ceil((p.system.length + p.staticText.length + p.answerText.length) / 4) + maxTokens;
}

export const DEFAULT_COOLDOWN_MS = 2000;

/** A call gate spending the shared limiter before the call and reporting its 429s to the pool. */
export function rateLimitGate(limiter: RateLimiter, maxTokens: number): CallGate {
  return async (req, send) => {
    await limiter.acquire(estimateTokens(req, maxTokens));
    try {
      return await send();
    } catch (e) {
      if (e instanceof ProviderCallError && e.status === 429 && e.kind !== 'stop-run') await limiter.coolDown(e.retryAfterMs ?? DEFAULT_COOLDOWN_MS);
      throw e;
    }
  };
}

/** The adapter with the shared limiter in front of every call and 429s reported to the pool. */
export function rateLimitedJudge(inner: Judge, limiter: RateLimiter, maxTokens: number): Judge {
  const gate = rateLimitGate(limiter, maxTokens);
  return { provider: inner.provider, model: inner.model, baseline: inner.baseline, call: (req) => gate(req, () => inner.call(req)) };
}
