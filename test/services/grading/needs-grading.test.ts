import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../../src/app.ts';
import { GRADE_QUEUE } from '../../../src/jobs/boss.ts';
import { loadJudge } from '../../../src/judges/config.ts';
import { ensureJudgeRow } from '../../../src/services/grading/judge-row.ts';
import { answersNeedingGrade, runSelection } from '../../../src/services/grading/needs-grading.ts';
import { answers, runs } from '../../../src/db/schema.ts';
import { storeRubric } from '../../../src/services/rubrics.ts';
import { farmyard } from '../../judges/harness.ts';
import { type GradingQueue, gradingQueue } from '../../../src/services/grading/queue.ts';
import { createGradingSession } from '../../../src/services/grading/session.ts';
import { startWorker } from '../../../src/services/grading/worker.ts';
import { createKey } from '../../../src/services/keys.ts';
import { describeDb } from '../../helpers/db.ts';
import { TEST_BOSS } from '../../jobs/helpers.ts';
import { gradedAmong, MIXED_EXPECTED, seedMixedRun } from './mixed-run.ts';

/**
 * The one needs-grading rule through the API and the queue: on a run holding descriptions and
 * assemblies, only the descriptions get jobs and grades, and enqueue and progress say exactly how many
 * answers were left out and why.
 */
describeDb('needs grading (API and queue)', (ctx) => {
  let queue: GradingQueue;
  let app: ReturnType<typeof createApp>;
  let writeKey = '';
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
    app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {}, queue });
    writeKey = (await createKey(ctx.database, { scopes: ['write'], name: 'w' })).key;
  }, 60_000);
  afterAll(async () => {
    await queue?.stop();
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await app.request(path, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${writeKey}` }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { status: r.status, body: (await r.json()) as any };
  };

  it('counts the run by the rule: graded answers, and the others by reason', async () => {
    const { runId } = await seedMixedRun(ctx.database, 'mixed-count');
    expect(await runSelection(ctx.database.db, runId)).toEqual(MIXED_EXPECTED);
  });

  it('POST /api/runs/{id}/grade enqueues only the descriptions; the worker grades only them; progress says what was skipped', async () => {
    const { graded, notGraded } = await seedMixedRun(ctx.database, 'mixed-api');
    const enq = await call('POST', '/api/runs/mixed-api/grade', { judge: 'lexical' });
    expect(enq.status).toBe(202);
    expect(enq.body).toEqual({ gradingRunId: expect.any(Number), ...MIXED_EXPECTED, alreadyGraded: 0, jobs: 4, resumed: 0, retried: 0 });
    const jobs = await ctx.database.execute(`select (data->>'answerId')::int as id from pgboss.job where name = $1 and (data->>'gradingRunId')::int = $2 order by 1`, [GRADE_QUEUE, enq.body.gradingRunId]);
    expect(jobs.rows.map((r) => Number(r.id))).toEqual(graded);

    const w = await startWorker(ctx.database, { concurrency: 2, pollMs: 20, queue, untilDone: [enq.body.gradingRunId] });
    await w.done;
    await w.stop();
    expect(w.stats).toMatchObject({ graded: 4, skipped: 0, failed: 0 });
    expect(await gradedAmong(ctx.database, [...graded, ...notGraded])).toEqual(graded);

    // The leaderboard's descriptions are the four graded ones: the errored answer's text is not the model's answer.
    const lb = await call('GET', '/api/reports/leaderboard?judge=lexical');
    expect(lb.status).toBe(200);
    expect(lb.body.rows.find((r: any) => r.model === 'model-x' && r.sizeBucket === 'all' && !r.baseline)).toMatchObject({ descriptions: 4 });

    const p = await call('GET', '/api/runs/mixed-api/progress');
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ ...MIXED_EXPECTED, done: 4, failed: 0, remaining: 0, calls: 4 });
    // Enqueueing again: nothing left to do, the same skipped counts.
    const again = await call('POST', '/api/runs/mixed-api/grade', { judge: 'lexical' });
    expect(again.body).toMatchObject({ ...MIXED_EXPECTED, alreadyGraded: 4, jobs: 0 });
  }, 120_000);

  it('a queued job for an answer the rule leaves out grades nothing; an interactive grade of an assembly is bad input', async () => {
    const { notGraded } = await seedMixedRun(ctx.database, 'mixed-job');
    const judge = loadJudge('lexical');
    await ensureJudgeRow(ctx.database, judge);
    const session = await createGradingSession(ctx.database, { judge });
    for (const id of notGraded) expect(await session.gradeQueued(id)).toBe('not graded');
    expect(await gradedAmong(ctx.database, notGraded)).toEqual([]);

    const errored = notGraded.at(-1)!;
    const e = await call('POST', '/api/grades', { answerId: errored, rubric: 'farmyard-54', judge: 'lexical' });
    expect(e.status).toBe(400);
    expect(e.body.error.message).toBe(`answer ${errored}: its call ended in error (status error): its text is not the model's answer, so no judge grades it`);
    expect(await gradedAmong(ctx.database, [errored])).toEqual([]);

    const assembly = notGraded[0]!;
    const r = await call('POST', '/api/grades', { answerId: assembly, rubric: 'farmyard-54', judge: 'lexical' });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe(`answer ${assembly}: task assemble is not graded by a judge (only describe and describe-then-solve answers are)`);
  }, 60_000);

  it('a truncated answer is graded (the model\'s own, cut output); an error answer is not, with or without text', async () => {
    const { rubricId } = await ctx.database.db.transaction((tx) => storeRubric(tx, farmyard));
    const [run] = await ctx.database.db.insert(runs).values({ name: 'statuses', model: 'model-s' }).returning({ id: runs.id });
    const rows = await ctx.database.db
      .insert(answers)
      .values([
        { runId: run!.id, externalId: 'ok', task: 'describe', rubricId, text: 'A red barn and a cow.' },
        { runId: run!.id, externalId: 'cut', task: 'describe', rubricId, status: 'truncated', text: 'A red barn and a co' },
        { runId: run!.id, externalId: 'err-text', task: 'describe-then-solve', rubricId, status: 'error', text: 'Looking at the pieces' },
        { runId: run!.id, externalId: 'err-none', task: 'describe', rubricId, status: 'error', text: null },
        { runId: run!.id, externalId: 'none', task: 'describe', rubricId, status: 'no_answer', text: null },
      ])
      .returning({ id: answers.id });
    expect(await runSelection(ctx.database.db, run!.id)).toEqual({ total: 2, skipped: { task: 0, answerError: 2, noText: 1, noRubric: 0 } });
    const judgeRow = await ensureJudgeRow(ctx.database, loadJudge('lexical'));
    expect(await answersNeedingGrade(ctx.database.db, run!.id, judgeRow)).toEqual([rows[0]!.id, rows[1]!.id]);
  }, 60_000);
});
