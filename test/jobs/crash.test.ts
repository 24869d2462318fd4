import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBoss } from '../../src/jobs/boss.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { createAdapter } from '../../src/judges/adapters/index.ts';
import type { Judge } from '../../src/judges/types.ts';
import { enqueueRunGrading } from '../../src/services/runs-grading.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { count, EXPIRE, gradesPerAnswer, JUDGE_FILE, quietEngine, seedRun, until, VERDICTS } from './helpers.ts';

/**
 * Crash safety. A worker that dies mid-run leaves its jobs active; pg-boss expires them and another
 * worker retries them. Afterwards: exactly one grade per answer, unique ledger rows, and provider calls
 * at most answers + jobs in flight at the crash (a verdict paid for before the crash is in the cache).
 *
 * PGlite is single-process (one process owns its data directory), so on PGlite the crash is simulated
 * in process: the worker is abandoned without finishing or failing its jobs, and its in-flight calls
 * never return. The same in-process crash runs on PostgreSQL too; kill.test.ts kills real worker processes.
 */

describeDb('crash in the middle of a run (in process)', (ctx) => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [VERDICTS], latencyMs: 30 });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('an abandoned worker is replaced: one grade per answer, calls ≤ answers + in flight', async () => {
    const n = 60;
    const { runId, answerIds } = await seedRun(ctx.database, 'crash-inproc', n);
    const boss = await startBoss(ctx.database, EXPIRE);
    const e = await enqueueRunGrading(ctx.database, boss, { run: 'crash-inproc', judge: JUDGE_FILE });
    fake.setScript([VERDICTS]);
    const keys = { anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url };
    let crashed = false;
    // After the crash nothing returns: a dead process writes no ledger row, cache entry or grade.
    const dying = async (judge: Parameters<typeof createAdapter>[0]): Promise<Judge> => {
      const inner = await createAdapter(judge, keys);
      return { ...inner, provider: inner.provider, model: inner.model, baseline: inner.baseline, call: async (req) => {
        if (crashed) return new Promise(() => {});
        const r = await inner.call(req);
        return crashed ? new Promise(() => {}) : r;
      } };
    };
    const a = await startWorker(ctx.database, { concurrency: 8, adapterFor: dying, bossInstance: boss, pollMs: 20, engine: quietEngine, rateLimits: false });
    // The crash comes with provider calls in flight (a worker can be between fetches, holding nothing).
    await until(async () => (await count(ctx.database, `select count(*)::int as n from grades where answer_id = any($1::int[])`, [answerIds])) >= 20 && a.stats.calling > 0, 60_000, '20 grades and calls in flight');
    crashed = true;
    const inFlight = a.stats.inFlight;
    await a.stop({ graceful: false });
    expect(inFlight).toBeGreaterThan(0);

    const b = await startWorker(ctx.database, { concurrency: 8, keys, bossInstance: boss, pollMs: 50, untilDone: [e.gradingRunId], engine: quietEngine, rateLimits: false });
    await b.done;
    await boss.stop({ graceful: false, close: false });
    expect(await gradesPerAnswer(ctx.database, runId)).toEqual(answerIds.map(() => 1));
    const calls = fake.calls.length;
    expect(calls).toBeGreaterThanOrEqual(n);
    expect(calls).toBeLessThanOrEqual(n + inFlight);
    const ledger = await ctx.database.execute(`select count(*)::int as n, count(distinct call_key)::int as d from usage_ledger where answer_id = any($1::int[])`, [answerIds]);
    expect(ledger.rows[0].n).toBe(ledger.rows[0].d);
    expect(await count(ctx.database, `select count(*)::int as n from (select answer_id from usage_ledger where answer_id = any($1::int[]) and status = 'ok' group by answer_id having count(*) > 1) x`, [answerIds])).toBe(0);
  }, 120_000);
});
