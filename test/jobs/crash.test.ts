import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAdapter } from '../../src/judges/adapters/index.ts';
import type { Judge } from '../../src/judges/types.ts';
import { getProgress } from '../../src/services/grading/progress.ts';
import { gradingQueue } from '../../src/services/grading/queue.ts';
import { enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { startWorker } from '../../src/services/grading/worker.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { count, EXPIRE, gradesPerAnswer, JUDGE_FILE, quietEngine, seedRun, until, VERDICTS } from './helpers.ts';

/**
 * Crash safety. A worker that dies mid-run stops heartbeating; once it is not seen for its dead-after
 * time a live worker's sweep hands its jobs back to the queue (src/jobs/liveness.ts) — pg-boss's own
 * expiry is set to 10 minutes here, so only liveness can be what resumes them. Afterwards: exactly one
 * grade per answer, and one ledger row per request the provider received (a row is written, pending,
 * before each request leaves; the calls the dead worker never saw answered stay pending, reported as
 * unsettled).
 *
 * PGlite is single-process (one process owns its data directory), so on PGlite the crash is simulated
 * in process: the worker is abandoned without finishing or failing its jobs, sends nothing more, and
 * its in-flight calls never return. The same runs on PostgreSQL too; kill.test.ts kills real processes.
 */

/** Short liveness times for tests: heartbeat 200 ms, dead after 1 s, sweep every 200 ms. */
const LIVE = { heartbeatMs: 200, deadAfterMs: 1000, sweepMs: 200 };
const NO_EXPIRY = { ...EXPIRE, expireInSeconds: 600 };

describeDb('crash in the middle of a run (in process)', (ctx) => {
  let fake: FakeProvider;
  const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url });
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [VERDICTS], latencyMs: 30 });
  });
  afterAll(async () => {
    await fake?.close();
  });

  const ledgerRows = async (answerIds: number[]) =>
    (await ctx.database.execute(`select count(*)::int as n, count(distinct call_key)::int as d, count(*) filter (where status = 'pending')::int as pending from usage_ledger where answer_id = any($1::int[])`, [answerIds])).rows[0];

  it('a dead worker is found by liveness and its jobs resumed: one grade per answer, ledger rows = provider calls', async () => {
    const n = 60;
    const { runId, answerIds } = await seedRun(ctx.database, 'crash-inproc', n);
    const queue = gradingQueue(ctx.database, NO_EXPIRY);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'crash-inproc', judge: JUDGE_FILE });
    fake.setScript([VERDICTS]);
    const callsBefore = fake.calls.length;
    // The crash comes after the 20th reply, from inside the provider call, so it cannot fall between two
    // polls of the test (a poll that waited for "20 grades and a call in flight" could miss that moment on
    // a loaded machine: the run finished between polls). A request that leaves after it reaches the
    // provider (and is billed); its reply is never read. The worker ends up with every slot on such a call.
    let replies = 0;
    const dying = async (judge: Parameters<typeof createAdapter>[0]): Promise<Judge> => {
      const inner = await createAdapter(judge, keys());
      return { ...inner, provider: inner.provider, model: inner.model, baseline: inner.baseline, call: async (req) => {
        const r = await inner.call(req);
        return ++replies > 20 ? new Promise(() => {}) : r;
      } };
    };
    const a = await startWorker(ctx.database, { concurrency: 8, adapterFor: dying, queue, pollMs: 20, engine: quietEngine, rateLimits: false, liveness: LIVE });
    // A stable state, not a moment: all 8 slots hang on calls whose replies are never read, and the 20 grades are written.
    await until(async () => a.stats.calling === 8 && (await count(ctx.database, `select count(*)::int as n from grades where answer_id = any($1::int[])`, [answerIds])) === 20, 60_000, '20 grades and every slot on a cut-off call');
    const crashedAt = (await ctx.database.execute(`select now() as t`)).rows[0].t;
    const inFlight = a.stats.inFlight;
    await a.stop({ graceful: false });
    expect(inFlight).toBeGreaterThanOrEqual(8);

    const b = await startWorker(ctx.database, { concurrency: 8, keys: keys(), queue, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine, rateLimits: false, liveness: LIVE });
    await b.done;
    await queue.stop();
    expect(await gradesPerAnswer(ctx.database, runId)).toEqual(answerIds.map(() => 1));

    // The dead worker's jobs (and only they: no call failed) were handed back and fetched again, within 60 s.
    expect(b.stats.takenOver).toBeGreaterThanOrEqual(inFlight);
    const resumed = await ctx.database.execute(
      `select count(*)::int as n, extract(epoch from max(started_on) - $2::timestamptz)::float8 as after from pgboss.job where name = 'assay-grade' and (data->>'gradingRunId')::int = $1 and retry_count > 0`,
      [e.gradingRunId, crashedAt],
    );
    expect(resumed.rows[0].n).toBe(b.stats.takenOver);
    expect(Number(resumed.rows[0].after)).toBeLessThanOrEqual(60);

    const calls = fake.calls.length - callsBefore;
    expect(calls).toBeGreaterThanOrEqual(n);
    expect(calls).toBeLessThanOrEqual(n + inFlight);
    const ledger = await ledgerRows(answerIds);
    expect(ledger.n).toBe(ledger.d);
    // Every request the provider received has its row: settled, or pending for the calls cut off by the crash.
    expect(ledger.n).toBe(calls);
    expect(ledger.pending).toBeGreaterThan(0);
    expect(await count(ctx.database, `select count(*)::int as n from (select answer_id from usage_ledger where answer_id = any($1::int[]) and status = 'ok' group by answer_id having count(*) > 1) x`, [answerIds])).toBe(0);
    // Progress counts them and reports them as unsettled (their worker is dead), their estimate in the cost.
    const p = await getProgress(ctx.database, e.gradingRunId);
    expect(p).toMatchObject({ done: n, remaining: 0, calls, inFlightCalls: 0, unsettled: { calls: ledger.pending } });
    const settledCost = await ctx.database.execute(`select coalesce(sum(cost_usd), 0)::float8 as c from usage_ledger where answer_id = any($1::int[]) and status <> 'pending'`, [answerIds]);
    expect(p.unsettled.costUsd).toBeGreaterThan(0);
    expect(p.costUsd).toBeCloseTo(Number(settledCost.rows[0].c) + p.unsettled.costUsd, 5);
  }, 120_000);

  it('a worker that was only slow loses its jobs to the takeover: it writes no grade, sends no further call', async () => {
    const n = 12;
    const { runId, answerIds } = await seedRun(ctx.database, 'crash-slow', n);
    const queue = gradingQueue(ctx.database, NO_EXPIRY);
    const e = await enqueueRunGrading(ctx.database, queue, { run: 'crash-slow', judge: JUDGE_FILE });
    fake.setScript([VERDICTS]);
    const callsBefore = fake.calls.length;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    // The provider answers at once; the worker is slow to go on (a stalled event loop, a paused VM).
    const slow = async (judge: Parameters<typeof createAdapter>[0]): Promise<Judge> => {
      const inner = await createAdapter(judge, keys());
      return { ...inner, provider: inner.provider, model: inner.model, baseline: inner.baseline, call: async (req) => {
        const r = await inner.call(req);
        await released;
        return r;
      } };
    };
    // It would not heartbeat again during the test; its row is aged below, as a stalled worker's would be.
    const a = await startWorker(ctx.database, { concurrency: 4, adapterFor: slow, queue, pollMs: 20, engine: quietEngine, rateLimits: false, liveness: { heartbeatMs: 60_000, deadAfterMs: 120_000, sweepMs: 60_000 } });
    await until(async () => a.stats.calling === 4 && a.stats.inFlight === 8 && fake.calls.length - callsBefore === 4, 30_000, 'four calls sent and four jobs read ahead');
    await ctx.database.execute(`update workers set last_seen = now() - interval '1 hour' where id = $1`, [a.workerId]);

    const b = await startWorker(ctx.database, { concurrency: 4, keys: keys(), queue, pollMs: 20, untilDone: [e.gradingRunId], engine: quietEngine, rateLimits: false, liveness: LIVE });
    await b.done;
    expect(b.stats.takenOver).toBe(8);
    const gradesBefore = (await ctx.database.execute(`select id, created_at, status from grades where answer_id = any($1::int[]) order by id`, [answerIds])).rows;
    expect(gradesBefore).toHaveLength(n);

    // The slow worker goes on: its four answered calls settle in the ledger, but every write for the jobs is refused.
    release();
    await until(async () => a.stats.leaseLost === 8, 30_000, 'the slow worker drops all eight jobs');
    await a.stop({ graceful: true });
    await queue.stop();
    expect(a.stats).toMatchObject({ graded: 0, skipped: 0, failed: 0, leaseLost: 8 });
    expect((await ctx.database.execute(`select id, created_at, status from grades where answer_id = any($1::int[]) order by id`, [answerIds])).rows).toEqual(gradesBefore);
    expect(await gradesPerAnswer(ctx.database, runId)).toEqual(answerIds.map(() => 1));
    // Its four jobs read ahead sent nothing after the takeover: the provider saw n + 4 requests, each in the ledger, settled.
    const calls = fake.calls.length - callsBefore;
    expect(calls).toBe(n + 4);
    const ledger = await ledgerRows(answerIds);
    expect(ledger).toEqual({ n: calls, d: calls, pending: 0 });
    expect(await count(ctx.database, `select count(*)::int as n from pgboss.job where name = 'assay-grade' and (data->>'gradingRunId')::int = $1 and state <> 'completed'`, [e.gradingRunId])).toBe(0);
  }, 120_000);
});
