import { OpenAPIHono } from '@hono/zod-openapi';
import { beforeAll, expect, it } from 'vitest';
import { guard } from '../../src/api/auth.ts';
import type { AppEnv } from '../../src/api/context.ts';
import type { Api } from '../../src/api/define-route.ts';
import { onError, validationHook } from '../../src/api/errors.ts';
import { FixedWindowLimiter } from '../../src/api/rate-limit.ts';
import { registerJobs } from '../../src/api/routes/jobs.ts';
import { startWorker } from '../../src/services/grading/worker.ts';
import { createKey, keyVerifier } from '../../src/services/keys.ts';
import { describeDb } from '../helpers/db.ts';
import { gradesPerAnswer, seedRun, TEST_BOSS } from './helpers.ts';

/** POST /api/runs/{id}/grade, GET /api/runs/{id}/progress and GET /api/jobs with the offline lexical judge. */
describeDb('jobs API', (ctx) => {
  let app: OpenAPIHono<AppEnv>;
  let writeKey = '';
  let readKey = '';
  beforeAll(async () => {
    app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
    const deps = { database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 1000 }, log: () => {} };
    const api = { app, deps, guard: guard({ verifyKey: keyVerifier(ctx.database), limiter: new FixedWindowLimiter(1000, 60_000), bodyLimitBytes: 1 << 20 }) } as unknown as Api;
    app.onError((err, c) => onError(err, c, () => {}));
    registerJobs(api);
    writeKey = (await createKey(ctx.database, { scopes: ['write'], name: 'w' })).key;
    readKey = (await createKey(ctx.database, { scopes: ['read'], name: 'r' })).key;
  }, 60_000);
  const call = (method: string, path: string, key: string, body?: unknown) =>
    app.request(path, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, ...(body ? { body: JSON.stringify(body) } : {}) });

  it('enqueues a run, reports progress to the end, and lists the completed jobs', async () => {
    const { runId, answerIds } = await seedRun(ctx.database, 'api-run', 12);
    expect((await call('POST', '/api/runs/api-run/grade', readKey, { judge: 'lexical' })).status).toBe(403);
    const r = await call('POST', '/api/runs/api-run/grade', writeKey, { judge: 'lexical' });
    expect(r.status).toBe(202);
    const enq = (await r.json()) as { gradingRunId: number };
    expect(enq).toEqual({ gradingRunId: expect.any(Number), total: 12, skipped: { task: 0, answerError: 0, noText: 0, noRubric: 0 }, alreadyGraded: 0, jobs: 12, resumed: 0, retried: 0 });

    const before = (await (await call('GET', '/api/runs/api-run/progress', readKey)).json()) as any;
    expect(before).toMatchObject({ total: 12, done: 0, failed: 0, remaining: 12, jobs: { queued: 12, retrying: 0, active: 0 }, ratePerSecond: null, etaSeconds: null });

    const w = await startWorker(ctx.database, { concurrency: 4, pollMs: 20, boss: TEST_BOSS, untilDone: [enq.gradingRunId] });
    await w.done;
    await w.stop();
    expect(await gradesPerAnswer(ctx.database, runId)).toEqual(answerIds.map(() => 1));

    const after = (await (await call('GET', `/api/runs/${runId}/progress?judge=lexical`, readKey)).json()) as any;
    expect(after).toMatchObject({ run: { id: runId, name: 'api-run' }, judge: { slug: 'lexical' }, total: 12, done: 12, failed: 0, remaining: 0, etaSeconds: 0, calls: 12, costUsd: 0 });
    const jobs = (await (await call('GET', '/api/jobs?run=api-run', readKey)).json()) as any;
    expect(jobs.counts).toMatchObject({ completed: 12, created: 0, failed: 0 });
    expect(jobs.jobs.map((j: any) => j.answerId).sort((a: number, b: number) => a - b)).toEqual(answerIds);
    expect((await call('GET', '/api/runs/no-such-run/progress', readKey)).status).toBe(404);
    expect((await call('GET', '/api/jobs?state=bogus', readKey)).status).toBe(400);
  }, 120_000);

  it('refuses an rpm under one request a minute (no worker could ever send a call under it); nothing is written', async () => {
    await seedRun(ctx.database, 'api-rpm', 2);
    const judges = async () => Number((await ctx.database.execute(`select count(*)::int as n from judges`)).rows[0].n);
    const before = await judges();
    const r = await call('POST', '/api/runs/api-rpm/grade', writeKey, { judge: 'lexical', rpm: 0.5 });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.code).toBe('bad_input');
    expect(await judges()).toBe(before);
    expect(Number((await ctx.database.execute(`select count(*)::int as n from rate_limits where rpm is not null`)).rows[0].n)).toBe(0);
    expect(Number((await ctx.database.execute(`select count(*)::int as n from grading_runs gr join runs r on r.id = gr.run_id where r.name = 'api-rpm'`)).rows[0].n)).toBe(0);
  }, 60_000);
});
