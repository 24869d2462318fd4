import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { calibrationLabels } from '../../../src/services/grading/calibration-labels.ts';
import { getRunProgress } from '../../../src/services/grading/progress.ts';
import { type GradingQueue, gradingQueue } from '../../../src/services/grading/queue.ts';
import { enqueueRunGrading } from '../../../src/services/grading/run-queue.ts';
import { startWorker } from '../../../src/services/grading/worker.ts';
import { mulberry32 } from '../../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../../fake-provider/server.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedRun, TEST_BOSS } from '../../jobs/helpers.ts';
import { farmyard } from '../../judges/harness.ts';
import { seedMixedRun } from './mixed-run.ts';

/**
 * A panel through the durable queue (what `assay run --judge panel.yaml` and POST /api/runs/{id}/grade
 * do): one job per answer, each job asking every member; the panel's grade and each member's own grade
 * stored once per answer; enqueueing again finds nothing left to do and a rerun calls no provider.
 */
describeDb('panel judges through the queue', (ctx) => {
  let queue: GradingQueue;
  let fake: FakeProvider;
  const dir = mkdtempSync(join(tmpdir(), 'assay-panel-queue-'));
  const keys = () => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl });
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
    const v = { kind: 'verdict-set' as const, verdicts: { barn: 'correct' as const }, claims: [{ text: 'c', verdict: 'true' as const }] };
    fake = await startFakeProvider({ models: { 'gpt-4.1': [v], 'claude-sonnet-5': [v], 'always-down': [{ kind: 'status', status: 500 }] } });
    for (const [id, provider, model] of [['q-gpt', 'openai', 'gpt-4.1'], ['q-claude', 'anthropic', 'claude-sonnet-5'], ['q-down', 'openai', 'always-down']]) {
      writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\nprovider: ${provider}\nmodel: ${model}\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n`);
    }
    writeFileSync(join(dir, 'q-panel.yaml'), 'id: q-panel\nprovider: panel\nmembers: [q-gpt, q-claude]\nquorum: 2\n');
    writeFileSync(join(dir, 'q-short.yaml'), 'id: q-short\nprovider: panel\nmembers: [q-gpt, q-down]\nquorum: 2\n');
  }, 60_000);
  afterAll(async () => {
    await queue?.stop();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('grades a run with a panel: panel and member grades once per answer, every call a provider call through the worker', async () => {
    const { runId, graded } = await seedMixedRun(ctx.database, 'panel-run');
    const ref = join(dir, 'q-panel.yaml');
    const enq = await enqueueRunGrading(ctx.database, queue, { run: 'panel-run', judge: ref });
    expect(enq).toMatchObject({ total: 4, jobs: 4, alreadyGraded: 0, judge: { slug: 'q-panel' } });
    const before = fake.calls.length;
    const w = await startWorker(ctx.database, { concurrency: 2, pollMs: 20, queue, keys: keys(), engine: { sleep: async () => {}, random: mulberry32(1) }, untilDone: [enq.gradingRunId] });
    await w.done;
    await w.stop();
    expect(w.stats).toMatchObject({ graded: 4, skipped: 0, failed: 0 });
    expect(fake.calls.length - before).toBe(8);
    const rows = await ctx.database.execute(
      `select j.slug, count(*)::int as n, count(distinct g.answer_id)::int as answers, min(g.status) as status from grades g join judges j on j.id = g.judge_id
       join answers a on a.id = g.answer_id where a.run_id = $1 group by j.slug order by j.slug`,
      [runId],
    );
    expect(rows.rows.map((r) => [r.slug, Number(r.n), Number(r.answers), r.status])).toEqual([
      ['q-claude', 4, 4, 'ok'],
      ['q-gpt', 4, 4, 'ok'],
      ['q-panel', 4, 4, 'ok'],
    ]);
    const panelRow = await ctx.database.execute(`select g.meta->'panel'->>'okSamples' as ok from grades g join judges j on j.id = g.judge_id where j.slug = 'q-panel' and g.answer_id = $1`, [graded[0]]);
    expect(panelRow.rows[0].ok).toBe('2');
    const p = await getRunProgress(ctx.database, 'panel-run', 'q-panel');
    // The members' calls were made for the panel: its progress counts all 8 (members × answers).
    expect(p).toMatchObject({ total: 4, done: 4, failed: 0, remaining: 0, calls: 8 });
    expect(p.tokens.input).toBeGreaterThan(0);

    // Calibration takes the panel as a rater like any judge: its voted verdict per item of every answer.
    const labels = await calibrationLabels(ctx.database, { key: 'answerId', run: 'panel-run', judge: 'q-panel', scale: 'verdict' });
    expect(labels.length).toBe(4 * farmyard.items.length);
    expect(new Set(labels.map((l) => `${l.rater}/${l.kind}/${l.label}`))).toEqual(new Set(['q-panel/judge/correct', 'q-panel/judge/missing']));
    expect(labels.filter((l) => l.label === 'correct').map((l) => l.item)).toEqual(['barn', 'barn', 'barn', 'barn']);

    // Enqueueing again: every answer has the panel's final grade, no job, no call.
    const again = await enqueueRunGrading(ctx.database, queue, { run: 'panel-run', judge: ref });
    expect(again).toMatchObject({ alreadyGraded: 4, jobs: 0 });
    expect(fake.calls.length - before).toBe(8);
  }, 120_000);

  it('a no_quorum of provider failures is retried by the queue like provider_error; the ok member is paid once (cache)', async () => {
    const { runId } = await seedRun(ctx.database, 'panel-short', 2);
    const ref = join(dir, 'q-short.yaml');
    const enq = await enqueueRunGrading(ctx.database, queue, { run: 'panel-short', judge: ref });
    const modelCalls = (m: string) => fake.calls.filter((c) => c.body?.model === m).length;
    const gpt0 = modelCalls('gpt-4.1');
    const down0 = modelCalls('always-down');
    const w = await startWorker(ctx.database, { concurrency: 4, pollMs: 20, queue, keys: keys(), engine: { sleep: async () => {}, random: mulberry32(1) }, untilDone: [enq.gradingRunId] });
    await w.done;
    await w.stop();
    // Every attempt of every job failed (TEST_BOSS: 1 + 2 retries), and none left a final grade.
    expect(w.stats).toMatchObject({ graded: 0, failed: 6 });
    const p = await getRunProgress(ctx.database, 'panel-short', 'q-short');
    expect(p).toMatchObject({ total: 2, done: 0, failed: 2, remaining: 0 });
    const rows = await ctx.database.execute(`select g.status, g.meta->'panel'->>'retryable' as retryable from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id where j.slug = 'q-short' and a.run_id = $1`, [runId]);
    expect(rows.rows.map((r) => [r.status, r.retryable])).toEqual(Array(2).fill(['no_quorum', 'true']));
    // Each job attempt asked the failing member again (2 engine attempts × 3 job attempts × 2 answers);
    // q-gpt once per answer: on the retries its verdict came from the response cache.
    expect(modelCalls('always-down') - down0).toBe(12);
    expect(modelCalls('gpt-4.1') - gpt0).toBe(2);
  }, 120_000);
});
