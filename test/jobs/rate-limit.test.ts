import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { dbRateLimiter, setLimits } from '../../src/jobs/rate-limit.ts';
import { describeDb, openTestDatabase } from '../helpers/db.ts';
import { count } from './helpers.ts';

/** A sleep that ends waiting callers once the test is over (their acquire rejects and is ignored). */
function stoppable(): { sleep: (ms: number) => Promise<void>; stop: () => void } {
  let stopped = false;
  return {
    sleep: (ms) => (stopped ? Promise.reject(new Error('test over')) : new Promise((r) => setTimeout(r, ms))),
    stop: () => void (stopped = true),
  };
}

/** Limits shared through the database: two limiters stand for two workers on one account. */
describeDb('shared rate limits', (ctx) => {
  it('two workers together spend at most the requests-per-minute bucket', async () => {
    await setLimits(ctx.database, 'anthropic:rpm-test', { rpm: 6 });
    const nap = stoppable();
    const workers = [dbRateLimiter(ctx.database, 'anthropic:rpm-test', nap.sleep), dbRateLimiter(ctx.database, 'anthropic:rpm-test', nap.sleep)];
    let granted = 0;
    // 12 callers race for 1.5 s: the full bucket holds 6, and 1.5 s refills only 0.15 of a request.
    const race = workers.flatMap((w) => Array.from({ length: 6 }, () => w.acquire(10).then(() => void granted++, () => {})));
    await Promise.race([Promise.all(race), new Promise((r) => setTimeout(r, 1500))]);
    nap.stop();
    await Promise.all(race);
    expect(granted).toBe(6);
    const left = await ctx.database.execute(`select requests from rate_limits where key = 'anthropic:rpm-test'`);
    expect(Number(left.rows[0].requests)).toBeLessThan(1);
  }, 30_000);

  it('the tokens-per-minute bucket holds back a call that does not fit', async () => {
    await setLimits(ctx.database, 'openai:tpm-test', { tpm: 1000 });
    const nap = stoppable();
    const w = dbRateLimiter(ctx.database, 'openai:tpm-test', nap.sleep);
    await w.acquire(700);
    let second = false;
    const pending = w.acquire(700).then(() => void (second = true), () => {});
    await new Promise((r) => setTimeout(r, 1000));
    nap.stop();
    await pending;
    // 1 s refills ≈ 17 tokens: 300 + 17 < 700, so the second call is still waiting.
    expect(second).toBe(false);
  }, 30_000);

  it('a limit under one request a minute is refused: the bucket, capped at rpm, could never hold a request', async () => {
    // Before: rpm 0.5 was stored, and every worker's acquire then waited for good (even an hour later).
    for (const rpm of [0.5, 0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(setLimits(ctx.database, 'anthropic:tiny-rpm', { rpm }), `rpm ${rpm}`).rejects.toMatchObject({ code: 'bad_input' });
    }
    await expect(setLimits(ctx.database, 'anthropic:tiny-rpm', { tpm: 0 })).rejects.toMatchObject({ code: 'bad_input' });
    expect(await count(ctx.database, `select count(*)::int as n from rate_limits where key = 'anthropic:tiny-rpm'`)).toBe(0);
    await setLimits(ctx.database, 'anthropic:tiny-rpm', { rpm: 1, tpm: 0.5 });
    expect(await count(ctx.database, `select count(*)::int as n from rate_limits where key = 'anthropic:tiny-rpm' and rpm = 1`)).toBe(1);
  });

  it("a 429 seen by one worker makes the other wait out the cool-down", async () => {
    const a = dbRateLimiter(ctx.database, 'anthropic:cool-test');
    const naps: number[] = [];
    const b = dbRateLimiter(ctx.database, 'anthropic:cool-test', (ms) => (naps.push(ms), new Promise((r) => setTimeout(r, ms))));
    await b.acquire(1);
    expect(naps).toEqual([]);
    await a.acquire(1);
    await a.coolDown(400);
    await new Promise((r) => setTimeout(r, 300)); // b's cached read (≤ 250 ms old) has expired
    await b.acquire(1);
    expect(naps.length).toBeGreaterThan(0);
    expect(naps[0]).toBeGreaterThan(0);
    expect(naps[0]).toBeLessThanOrEqual(400);
    expect(await count(ctx.database, `select throttled as n from rate_limits where key = 'anthropic:cool-test'`)).toBe(1);
  }, 30_000);
});

// PGlite has one connection, so nothing there runs at once: this one is PostgreSQL only.
describe.skipIf(!process.env.TEST_DATABASE_URL)('shared rate limits across connection pools [postgres]', () => {
  it('workers on separate connection pools (two machines) together spend at most the bucket', async () => {
    const { database, url, drop } = await openTestDatabase('postgres');
    const other = await openDatabase({ url: url!, max: 4 });
    try {
      await setLimits(database, 'anthropic:pools-test', { rpm: 10, tpm: 1000 });
      const nap = stoppable();
      const workers = [dbRateLimiter(database, 'anthropic:pools-test', nap.sleep), dbRateLimiter(other, 'anthropic:pools-test', nap.sleep)];
      let granted = 0;
      // 40 callers of 30 tokens: rpm 10 admits 10 (tpm 1000 would admit 33); refill in 1.5 s is 0.25 of a request.
      const race = workers.flatMap((w) => Array.from({ length: 20 }, () => w.acquire(30).then(() => void granted++, () => {})));
      await Promise.race([Promise.all(race), new Promise((r) => setTimeout(r, 1500))]);
      nap.stop();
      await Promise.all(race);
      expect(granted).toBe(10);
      const left = await database.execute(`select requests, tokens from rate_limits where key = 'anthropic:pools-test'`);
      expect(Number(left.rows[0].tokens)).toBeGreaterThanOrEqual(1000 - 10 * 30);
      expect(Number(left.rows[0].tokens)).toBeLessThan(1000 - 10 * 30 + 30);
    } finally {
      await other.close();
      await drop();
    }
  }, 30_000);
});
