import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBoss } from '../../src/jobs/boss.ts';
import { startWorker } from '../../src/jobs/worker.ts';
import { createAdapter } from '../../src/judges/adapters/index.ts';
import type { Judge } from '../../src/judges/types.ts';
import { enqueueRunGrading } from '../../src/services/runs-grading.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { BIN } from '../helpers/cli.ts';
import { describeDb, openTestDatabase } from '../helpers/db.ts';
import { count, gradesPerAnswer, JUDGE_FILE, quietEngine, seedRun, VERDICTS } from './helpers.ts';

/**
 * Crash safety. A worker that dies mid-run leaves its jobs active; pg-boss expires them and another
 * worker retries them. Afterwards: exactly one grade per answer, unique ledger rows, and provider calls
 * at most answers + jobs in flight at the crash (a verdict paid for before the crash is in the cache).
 *
 * PGlite is single-process (one process owns its data directory), so on PGlite the crash is simulated
 * in process: the worker is abandoned without finishing or failing its jobs, and its in-flight calls
 * never return. On PostgreSQL a real worker process is killed with SIGKILL.
 */

const EXPIRE = { expireInSeconds: 4, maintenanceIntervalSeconds: 1, retryLimit: 3, retryDelay: 1 };

async function until(f: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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
    await until(async () => (await count(ctx.database, `select count(*)::int as n from grades where answer_id = any($1::int[])`, [answerIds])) >= 20, 60_000, '20 grades');
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

const pg = process.env.TEST_DATABASE_URL ? describe : describe.skip;

pg('kill -9 a worker process in the middle of 1,000 answers [postgres]', () => {
  const children: ChildProcess[] = [];
  let fake: FakeProvider;
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [VERDICTS], latencyMs: 10 });
    db = await openTestDatabase('postgres');
  }, 60_000);
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await fake?.close();
    await db?.drop();
  });

  const worker = (): ChildProcess => {
    const env = { ...process.env, DATABASE_URL: db.url!, ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: fake.url, ASSAY_JOB_MAINTENANCE_SECONDS: '1' };
    const c = spawn(BIN, ['worker', '--concurrency', '16', '--poll-ms', '50'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr!.on('data', (d) => (err = (err + String(d)).slice(-4000)));
    c.on('exit', (code, sig) => {
      if (code && sig !== 'SIGKILL') console.error(`worker exited ${code}: ${err}`);
    });
    children.push(c);
    return c;
  };

  it('restart with two workers: exactly one grade per answer, calls ≤ answers + active at the kill, ledger unique', async () => {
    const n = 1000;
    const { database } = db;
    const { runId, answerIds } = await seedRun(database, 'crash-kill', n);
    const boss = await startBoss(database, { ...EXPIRE, expireInSeconds: 6 });
    const e = await enqueueRunGrading(database, boss, { run: 'crash-kill', judge: JUDGE_FILE });
    await boss.stop({ graceful: false, close: false });
    expect(e.jobs).toBe(n);
    fake.setScript([VERDICTS]);
    const graded = () => count(database, `select count(*)::int as n from grades where answer_id = any($1::int[])`, [answerIds]);

    const first = worker();
    await until(async () => (await graded()) >= 200, 90_000, '200 grades from the first worker');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const activeAtKill = await count(database, `select count(*)::int as n from pgboss.job where state = 'active'`);
    const gradedAtKill = await graded();
    expect(gradedAtKill).toBeLessThan(n);

    worker();
    worker();
    await until(async () => (await graded()) === n && (await count(database, `select count(*)::int as n from pgboss.job where state < 'completed'`)) === 0, 150_000, 'every answer graded');
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');

    expect(await gradesPerAnswer(database, runId)).toEqual(answerIds.map(() => 1));
    expect(fake.calls.length).toBeLessThanOrEqual(n + activeAtKill);
    const ledger = await database.execute(`select count(*)::int as n, count(distinct call_key)::int as d from usage_ledger where answer_id = any($1::int[])`, [answerIds]);
    expect(ledger.rows[0].n).toBe(ledger.rows[0].d);
    // Two workers after the restart: no answer was graded (paid for) twice.
    expect(await count(database, `select count(*)::int as n from (select answer_id from usage_ledger where status = 'ok' group by answer_id having count(*) > 1) x`)).toBe(0);
  }, 240_000);
});
