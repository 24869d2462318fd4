import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { AssayApiError, createAssayClient, jsonLines, unwrap, waitForGrading, type AssayClient, type operations, type Schemas } from '../../clients/typescript/index.ts';
import { createApp } from '../../src/app.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { startWorker } from '../../src/services/grading/worker.ts';
import { createKey } from '../../src/services/keys.ts';
import { describeDb } from '../helpers/db.ts';
import { TEST_BOSS } from '../jobs/helpers.ts';

/**
 * The main API flows through the generated TypeScript client (clients/typescript) against a real Node
 * server: every call below is type-checked against the live document by `tsc`, and run here. A key from
 * an admin key, a rubric, answers uploaded as JSON Lines, one answer graded, the run graded by a worker
 * and watched to the end, labels, the calibration report and the leaderboard, stats and calibrate.
 */

type RubricBody = operations['importRubrics']['requestBody']['content']['application/json'];

const REFERENCE = 'A bright cartoon farmyard with a large red barn on the left, a green tractor, pigs in the mud and a blue pond with ducks.';
const answers = [
  { id: 'a0', task: 'describe', rubric: 'farmyard-54', text: REFERENCE },
  { id: 'a1', task: 'describe', rubric: 'farmyard-54', text: 'A red barn and a farmer on a tractor; sheep by the fence.' },
  { id: 'a2', task: 'describe', rubric: 'farmyard-54', text: 'A city street at night with tall buildings.' },
  { id: 'a3', task: 'describe', rubric: 'farmyard-54', text: 'Three pink pigs in the mud, a pond with two white ducks, hills and a windmill.' },
];

describeDb('the TypeScript client drives the main API flows', (ctx) => {
  let server: RunningServer;
  let admin: AssayClient;
  let assay: AssayClient;
  beforeAll(async () => {
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    server = await listen(app.fetch, '127.0.0.1', 0);
    admin = createAssayClient({ baseUrl: server.url, key: (await createKey(ctx.database, { scopes: ['admin'], name: 'bootstrap' })).key });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('creates a write key, imports the rubric and uploads answers as JSON Lines', async () => {
    const created = await unwrap(admin.POST('/api/keys', { body: { scopes: ['write'], name: 'client test' } }));
    expect(created.scopes).toEqual(['write']);
    expect(created.key.startsWith(`assay_${created.prefix}_`)).toBe(true);
    assay = createAssayClient({ baseUrl: server.url, key: created.key });

    const rubric = parseYaml(readFileSync('rubrics/farmyard.yaml', 'utf8')) as RubricBody;
    const imported = await unwrap(assay.POST('/api/rubrics', { body: rubric }));
    expect(JSON.stringify(imported)).toContain('farmyard-54');

    const up = await unwrap(assay.POST('/api/answers', { params: { query: { run: 'client-run', model: 'model-a' } }, ...jsonLines(answers) }));
    expect(up).toMatchObject({ imported: 4 });
    // A bad line: the envelope comes back as an AssayApiError, and nothing of the upload is stored.
    const bad = await unwrap(assay.POST('/api/answers', { params: { query: { run: 'client-run', model: 'model-a' } }, ...jsonLines([{ id: 'b1', task: 'nope', text: 'x' }]) })).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(AssayApiError);
    expect([(bad as AssayApiError).status, (bad as AssayApiError).code]).toEqual([400, 'bad_input']);
    const listed = await unwrap(assay.GET('/api/answers', { params: { query: { run: 'client-run' } } }));
    expect(listed.total).toBe(4);
  });

  let first: Schemas['Grade'];
  it('grades one answer, then the rest of the run through the queue, watched to the end', async () => {
    const a0 = (await unwrap(assay.GET('/api/answers', { params: { query: { run: 'client-run', limit: 1 } } }))).items[0]!;
    first = await unwrap(assay.POST('/api/grades', { body: { answerId: a0.id, judge: 'lexical' } }));
    expect([first.answerId, first.status, first.judge.id, first.rubric?.id]).toEqual([a0.id, 'ok', 'lexical', 'farmyard-54']);
    expect(first.items.map((i) => i.id)).toHaveLength(17);

    const enq = await unwrap(assay.POST('/api/runs/{id}/grade', { params: { path: { id: 'client-run' } }, body: { judge: 'lexical' } }));
    expect(enq).toMatchObject({ total: 4, alreadyGraded: 1, jobs: 3 });
    const w = await startWorker(ctx.database, { concurrency: 2, pollMs: 20, boss: TEST_BOSS, untilDone: [enq.gradingRunId] });
    await w.done;
    await w.stop();
    const done = await waitForGrading(assay, 'client-run', { judge: 'lexical' });
    expect(done).toMatchObject({ run: { name: 'client-run' }, judge: { slug: 'lexical' }, total: 4, failed: 0, remaining: 0 });
  }, 120_000);

  it('reads the calibration report over uploaded labels; its kappa equals POST /api/stats/kappa on the same verdicts', async () => {
    // Both annotators agree with the judge on every item of a0 but the first, where both say otherwise.
    const flip = (v: string) => (v === 'correct' ? 'missing' : 'correct');
    const human = first.items.map((it, i) => (i === 0 ? flip(it.verdict) : it.verdict));
    const rows = ['ann-1', 'ann-2'].flatMap((annotator) => first.items.map((it, i) => ({ answer: 'a0', run: 'client-run', item: it.id, annotator, label: human[i] })));
    const labelled = await unwrap(assay.POST('/api/labels', jsonLines(rows)));
    expect(labelled).toMatchObject({ inserted: rows.length, replaced: 0 });

    const report = await unwrap(assay.GET('/api/reports/calibration', { params: { query: { run: 'client-run', judge: 'lexical' } } }));
    expect(report.humans).toEqual(['ann-1', 'ann-2']);
    const judge = report.judgeReports.find((j) => j.rater === 'lexical')!;
    expect(judge.vsMajority.n).toBe(17);
    expect(judge.vsMajority.agreement).toBeCloseTo(16 / 17, 12);
    const kappa = await unwrap(assay.POST('/api/stats/kappa', { body: { a: first.items.map((i) => i.verdict), b: human } }));
    expect(judge.vsMajority.kappa?.kappa).toBeCloseTo(kappa.kappa!, 12);
  });

  it("reads the leaderboard: the run's row is the mean F1 of its four grades", async () => {
    // Grading a graded answer again with the same judge answers the stored verdicts (the response
    // cache) and the leaderboard still counts each answer once.
    const ids = (await unwrap(assay.GET('/api/answers', { params: { query: { run: 'client-run' } } }))).items.map((a) => a.id);
    const f1 = await Promise.all(ids.map(async (answerId) => (await unwrap(assay.POST('/api/grades', { body: { answerId, judge: 'lexical' } }))).f1!));
    expect(f1[0]).toBe(first.f1);
    const board = await unwrap(assay.GET('/api/reports/leaderboard', { params: { query: { run: 'client-run', judge: 'lexical' } } }));
    const all = board.rows.find((r) => r.model === 'model-a' && r.sizeBucket === 'all')!;
    expect(all.descriptions).toBe(4);
    expect(all.f1).toBeCloseTo(f1.reduce((s, x) => s + x, 0) / 4, 12);
    expect(all.f1Low! <= all.f1! && all.f1! <= all.f1High!).toBe(true);
  });

  it('computes a kappa and a calibration report from labels in the body', async () => {
    // SAS / statsmodels table [[0,4,1],[0,8,0],[0,1,5]]: kappa 0.4842.
    const a = [...Array(5).fill(0), ...Array(8).fill(1), ...Array(6).fill(2)];
    const b = [1, 1, 1, 1, 2, ...Array(8).fill(1), 1, 2, 2, 2, 2, 2];
    expect((await unwrap(assay.POST('/api/stats/kappa', { body: { a, b } }))).kappa).toBeCloseTo(0.4842, 4);

    // Two annotators agree on six answers (pass ×3, fail ×3); the judge on four of them: p_o = 4/6,
    // p_e = 1/2 (both 3/3 marginals), kappa = (2/3 − 1/2) / (1/2) = 1/3.
    const humans = ['pass', 'pass', 'pass', 'fail', 'fail', 'fail'];
    const judgeLabels = ['pass', 'pass', 'fail', 'fail', 'fail', 'pass'];
    const labels = humans.flatMap((h, i) => [
      { answer: `u${i}`, rater: 'h1', kind: 'human' as const, label: h },
      { answer: `u${i}`, rater: 'h2', kind: 'human' as const, label: h },
      { answer: `u${i}`, rater: 'j1', kind: 'judge' as const, label: judgeLabels[i]! },
    ]);
    const r = await unwrap(assay.POST('/api/calibrate', { body: { scale: 'binary', labels, seed: 1 } }));
    const j1 = r.judgeReports.find((j) => j.rater === 'j1')!;
    expect([j1.vsMajority.n, j1.vsMajority.agreement]).toEqual([6, 4 / 6]);
    expect(j1.vsMajority.kappa?.kappa).toBeCloseTo(1 / 3, 12);
  });
});
