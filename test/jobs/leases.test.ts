import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type PgBoss from 'pg-boss';
import { gradeUpserter, type GradeRow, type WrittenGrade } from '../../src/db/grade-store.ts';
import { dbUsageLedger } from '../../src/db/judge-store.ts';
import { GRADE_QUEUE, startBoss } from '../../src/jobs/boss.ts';
import { completeLeased, failLeased, leaseOf, takeOverOrphans } from '../../src/jobs/leases.ts';
import { loadConfig } from '../../src/config.ts';
import { checkLiveness, detectionBoundMs, livenessDefaults } from '../../src/jobs/liveness.ts';
import { loadJudge } from '../../src/judges/config.ts';
import { ensureJudgeRow } from '../../src/services/grading/judge-row.ts';
import { queuedAnswerReader } from '../../src/services/grading/queued-read.ts';
import { listJobs } from '../../src/services/jobs.ts';
import { describeDb } from '../helpers/db.ts';
import { seedRun } from './helpers.ts';

/**
 * Liveness rules and job leases on both engines: what a sweep hands back, and that every write made
 * under a lease that no longer holds (pending ledger row, grade, completion, failure) is refused.
 */

describe('liveness times', () => {
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
  });

  it('by default a dead worker is found and its jobs due again within 60 s', () => {
    for (const k of ['ASSAY_WORKER_HEARTBEAT_SECONDS', 'ASSAY_WORKER_DEAD_SECONDS', 'ASSAY_WORKER_SWEEP_SECONDS']) delete process.env[k];
    const d = livenessDefaults();
    expect(d).toEqual({ heartbeatMs: 5000, deadAfterMs: 30_000, sweepMs: 5000 });
    expect(detectionBoundMs(d)).toBeLessThanOrEqual(60_000);
  });

  it('reads the environment and refuses bad values', () => {
    // Read with the rest of the configuration (src/config.ts), once, when a command starts.
    const env = { ASSAY_WORKER_HEARTBEAT_SECONDS: '0.5', ASSAY_WORKER_DEAD_SECONDS: '2', ASSAY_WORKER_SWEEP_SECONDS: '1' };
    expect(loadConfig(env).jobs.liveness).toEqual({ heartbeatMs: 500, deadAfterMs: 2000, sweepMs: 1000 });
    expect(() => loadConfig({ ...env, ASSAY_WORKER_DEAD_SECONDS: 'soon' })).toThrow(/ASSAY_WORKER_DEAD_SECONDS: a number of seconds/);
    expect(() => loadConfig({ ...env, ASSAY_WORKER_DEAD_SECONDS: '0.8' })).toThrow(/at least twice the heartbeat/);
    expect(() => checkLiveness({ heartbeatMs: 1000, deadAfterMs: 1500, sweepMs: 100 })).toThrow(/at least twice/);
  });
});

describeDb('job leases', (ctx) => {
  let boss: PgBoss;
  beforeAll(async () => {
    boss = await startBoss(ctx.database, { supervise: false, expireInSeconds: 600 });
  });
  afterAll(async () => {
    await boss?.stop({ graceful: false, close: false });
  });

  const insertJobs = async (answerIds: number[]) => {
    const ids = answerIds.map((a) => `00000000-0000-4000-8000-${String(a).padStart(12, '0')}`);
    await boss.insert(ids.map((id, i) => ({ id, name: GRADE_QUEUE, data: { gradingRunId: 0, answerId: answerIds[i] } })));
    return ids;
  };
  const fetchAll = async (n: number) => (await boss.fetch<unknown>(GRADE_QUEUE, { batchSize: n, includeMetadata: true })).sort((a, b) => a.id.localeCompare(b.id));
  const worker = (id: string, lastSeenSecondsAgo: number, jobs: string[]) =>
    ctx.database.execute(`insert into workers (id, host, pid, dead_after_ms, last_seen, jobs) values ($1, 'h', 1, 1000, now() - make_interval(secs => $2::float8), $3::jsonb)`, [id, lastSeenSecondsAgo, JSON.stringify(jobs)]);
  const age = (ids: string[], seconds: number) => ctx.database.execute(`update pgboss.job set started_on = now() - make_interval(secs => $2::float8) where id = any($1::uuid[])`, [ids, seconds]);
  const states = async (ids: string[]) =>
    (await ctx.database.execute(`select id::text as id, state::text as state, retry_count, start_after <= now() as due from pgboss.job where id = any($1::uuid[]) order by id`, [ids])).rows.map((r) => [r.state, Number(r.retry_count), r.due]);

  it('a sweep hands back the jobs no live worker lists, once they are older than the dead-after time', async () => {
    const { answerIds } = await seedRun(ctx.database, 'lease-sweep', 4);
    const ids = await insertJobs(answerIds);
    await fetchAll(4);
    await worker('w-live', 0, [ids[0]!]);
    await worker('w-dead', 5, [ids[1]!]);
    // ids[2] is listed by nobody but was fetched just now (its holder may not have heartbeated it yet).
    await age([ids[0]!, ids[1]!, ids[3]!], 10);
    const taken = await takeOverOrphans(ctx.database, boss, 1);
    expect(taken.sort()).toEqual([ids[1], ids[3]]);
    // Failed through pg-boss (a retry spent when fetched again) and due at once, not after a backoff.
    expect(await states(ids)).toEqual([['active', 0, true], ['retry', 0, true], ['active', 0, true], ['retry', 0, true]]);
    expect(await takeOverOrphans(ctx.database, boss, 1)).toEqual([]);
    const listed = await listJobs(ctx.database);
    expect(listed.workers.map((w) => [w.id, w.alive, w.jobs])).toEqual(expect.arrayContaining([['w-live', true, 1], ['w-dead', false, 1]]));
    await ctx.database.execute(`delete from workers`);
    await ctx.database.execute(`delete from pgboss.job where id = any($1::uuid[])`, [ids]);
  });

  it('writes under a lost lease are refused: pending ledger row, grade, completion, failure', async () => {
    const { answerIds } = await seedRun(ctx.database, 'lease-fence', 2);
    const ids = await insertJobs(answerIds);
    const first = await fetchAll(2);
    const old = first.map(leaseOf);
    await age(ids, 10);
    expect((await takeOverOrphans(ctx.database, boss, 1)).sort()).toEqual(ids);
    const again = await fetchAll(2);
    const now = again.map(leaseOf);
    expect(now.map((l) => l.token)).toEqual([1, 1]);

    const judgeId = await ensureJudgeRow(ctx.database, loadJudge('lexical'));
    const ledger = dbUsageLedger(ctx.database, { judgeId, workerId: 'w-x' });
    const usage = { input: 500, output: 100, cacheRead: 0, cacheWrite: 0 };
    const entry = (callKey: string, status: string, answer: number) => ({ callKey, provider: 'anthropic', model: 'm', judgeId: 'lexical', judgeConfigHash: 'h', answerHash: 'a', answerId: String(answer), usage, costUsd: 0.01, latencyMs: 0, status });
    expect(await Promise.all([ledger.begin(entry('lf-old', 'pending', answerIds[0]!), old[0]), ledger.begin(entry('lf-new', 'pending', answerIds[0]!), now[0]), ledger.begin(entry('lf-free', 'pending', answerIds[1]!))])).toEqual([false, true, true]);
    // Settling: the pending row takes the call's figures once; a second settle changes nothing.
    await ledger.record({ ...entry('lf-new', 'ok', answerIds[0]!), usage: { input: 40, output: 9, cacheRead: 0, cacheWrite: 0 }, costUsd: 0.002, latencyMs: 31 });
    await ledger.record({ ...entry('lf-new', 'fatal_error', answerIds[0]!), costUsd: 9 });
    const rows = await ctx.database.execute(`select call_key, status, input_tokens, output_tokens, cost_usd, latency_ms, worker_id, settled_at is not null as settled from usage_ledger where call_key like 'lf-%' order by call_key`);
    expect(rows.rows.map((r) => [r.call_key, r.status, r.input_tokens, r.output_tokens, r.cost_usd, r.latency_ms, r.worker_id, r.settled])).toEqual([
      ['lf-free', 'pending', 500, 100, 0.01, 0, 'w-x', false],
      ['lf-new', 'ok', 40, 9, 0.002, 31, 'w-x', true],
    ]);

    // The cache lookup and the begin in one statement: a hit writes nothing; a miss begins (under a held lease only).
    const verdict = { output: { items: [], claims: [] }, raw: 'cached', stop: 'complete', usage, calls: 1, model: 'm', promptHash: 'p' } as never;
    await ctx.database.execute(`insert into judge_cache (key, response) values ('lf-cached', $1::jsonb)`, [JSON.stringify(verdict)]);
    expect(await Promise.all([
      ledger.beginUnlessCached!('lf-cached', entry('lf-hit', 'pending', answerIds[1]!), now[1]),
      ledger.beginUnlessCached!('lf-miss', entry('lf-miss', 'pending', answerIds[1]!), now[1]),
      ledger.beginUnlessCached!('lf-miss2', entry('lf-stale', 'pending', answerIds[1]!), old[1]),
      ledger.beginUnlessCached!('lf-cached', entry('lf-hit2', 'pending', answerIds[1]!)),
    ])).toEqual([{ hit: verdict }, { begun: true }, { begun: false }, { hit: verdict }]);
    expect((await ctx.database.execute(`select call_key from usage_ledger where call_key in ('lf-hit', 'lf-miss', 'lf-stale', 'lf-hit2') order by call_key`)).rows.map((r) => r.call_key)).toEqual(['lf-miss']);

    const version = (await queuedAnswerReader(ctx.database, judgeId)(answerIds[0]!))!.versionId!;
    const grade = (f1: number): GradeRow => ({ answerId: answerIds[0]!, judgeId, rubricVersionId: version, promptHash: 'p', status: 'ok', reason: null, completeness: f1, correctness: f1, f1, items: [], claims: [], meta: {}, rawOutput: null, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, latencyMs: 1 });
    const upsert = gradeUpserter(ctx.database);
    const written = await upsert(grade(0.5), now[0]);
    expect(written).toEqual({ id: expect.any(Number), createdAt: expect.any(Date) });
    expect(await upsert(grade(0.9), old[0])).toBeNull();
    expect((await ctx.database.execute(`select f1 from grades where id = $1`, [(written as WrittenGrade).id])).rows[0].f1).toBe(0.5);

    expect(await failLeased(ctx.database, boss, old[1]!, 'late failure')).toBe(false);
    await completeLeased(ctx.database, [{ lease: old[0]!, outcome: 'ok' }]);
    expect(await states(ids)).toEqual([['active', 1, true], ['active', 1, true]]);
    await completeLeased(ctx.database, [{ lease: now[0]!, outcome: 'ok' }]);
    expect(await failLeased(ctx.database, boss, now[1]!, 'real failure')).toBe(true);
    expect((await states(ids)).map((s) => s[0])).toEqual(['completed', 'retry']);
  });
});
