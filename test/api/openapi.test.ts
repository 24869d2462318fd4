import { readFileSync } from 'node:fs';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { openApiValidator } from './openapi-ajv.ts';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { seedExamples } from '../../src/services/seed.ts';
import { ROOT } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import { emptySpots, operations, resolve, undescribed, type OpenApiDoc, type Schema } from './openapi-walk.ts';

/**
 * Issue 16: every operation of /openapi.json is typed. The document itself (an operationId on each
 * operation, unique; a schema on every 2xx response that says something all the way down), and the
 * real responses of the main flows over the seeded examples validated against the schemas the document
 * declares for them (ajv, JSON Schema 2020-12 as OpenAPI 3.1 has it), with every field they carry
 * described — an undescribed field is one a generated client cannot see.
 */

// Response bodies are plain JSON documents here; what matters is that they match the document.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Operations this suite does not call, each with why (everything else must have a validated response). */
const NOT_CALLED: Record<string, string> = {
  'POST /api/jobs/retry': 'needs a dead-lettered job (a worker and a failing judge): test/jobs',
  'POST /api/campaigns/{ref}/adjudications': 'needs annotators who disagree: test/api/campaigns.test.ts',
};

describeDb('the OpenAPI document types every operation', (ctx) => {
  const api = useApi(ctx);
  let doc: OpenApiDoc;
  let ajv: Ajv2020;
  /** "METHOD /path" of every operation a response of which was validated. */
  const validated = new Set<string>();

  beforeAll(async () => {
    await seedExamples(ctx.database);
    doc = (await (await api.call(null, 'GET', '/openapi.json')).json()) as OpenApiDoc;
    ajv = openApiValidator(doc.components);
  }, 180_000);

  const declared = (method: string, template: string, status: number): Schema => {
    const op = doc.paths[template]?.[method.toLowerCase()];
    expect(op, `${method} ${template} is in the document`).toBeDefined();
    const schema = op!.responses[String(status)]?.content?.['application/json']?.schema;
    expect(schema, `${method} ${template} declares a JSON schema for ${status}`).toBeDefined();
    return schema!;
  };

  /** Calls the route, expects `status`, validates the body against the declared schema and returns it. */
  async function check(key: string | null, method: string, template: string, path: string, status: number, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Json> {
    const res = await api.call(key, method, path, init);
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text.slice(0, 300)}`).toBe(status);
    const body = JSON.parse(text) as Json;
    const schema = declared(method, template, status);
    const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')) as Schema);
    expect(validate(body) ? [] : validate.errors, `${method} ${path} matches its ${status} schema`).toEqual([]);
    expect(undescribed(doc, schema, body), `${method} ${path}: fields its ${status} schema does not describe`).toEqual([]);
    validated.add(`${method} ${template}`);
    return body;
  }

  it('names every operation with a unique operationId', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(50);
    expect(ops.filter((o) => !o.op.operationId).map((o) => `${o.method} ${o.path}`)).toEqual([]);
    const ids = ops.map((o) => o.op.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
  });

  it('gives every 2xx response and every request body a schema that says something, all the way down', () => {
    const problems: string[] = [];
    for (const { method, path, op } of operations(doc)) {
      const ok = Object.entries(op.responses).filter(([s]) => s.startsWith('2'));
      if (ok.length === 0) problems.push(`${method} ${path}: no 2xx response`);
      for (const [status, r] of ok) {
        const content = Object.entries(r.content ?? {});
        if (content.length === 0) problems.push(`${method} ${path} ${status}: no content`);
        for (const [type, { schema }] of content) {
          if (!schema) problems.push(`${method} ${path} ${status} ${type}: no schema`);
          else for (const spot of emptySpots(doc, schema)) problems.push(`${method} ${path} ${status} ${type}: {} at ${spot}`);
        }
      }
      for (const [type, { schema }] of Object.entries(op.requestBody?.content ?? {})) {
        if (!schema || Object.keys(resolve(doc, schema)).every((k) => k === 'description')) problems.push(`${method} ${path} request ${type}: no schema`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('catches an untyped response: the walk finds {} and undescribed fields', () => {
    const toy: OpenApiDoc = { paths: {}, components: { schemas: { A: { type: 'object', properties: { x: {}, y: { type: 'string' } } } } } };
    expect(emptySpots(toy, { $ref: '#/components/schemas/A' })).toEqual(['(#/components/schemas/A)/x']);
    expect(emptySpots(toy, { description: 'anything' })).toEqual(['/']);
    expect(emptySpots(toy, { type: 'object', additionalProperties: {} })).toEqual([]);
    expect(undescribed(toy, { $ref: '#/components/schemas/A' }, { y: 'a', z: 1 })).toEqual(['/z']);
    expect(undescribed(toy, { type: 'array', items: { $ref: '#/components/schemas/A' } }, [{ y: 'a' }, { w: null }])).toEqual(['/1/w']);
  });

  it('validates the responses of the main flows over the seeded examples against their declared schemas', async () => {
    const { read, write, admin, annotate } = api.keys;
    expect(await check(null, 'GET', '/health', '/health', 200)).toMatchObject({ status: 'ok' });

    // Catalog: rubrics, puzzles, runs.
    const rubrics = await check(read, 'GET', '/api/rubrics', '/api/rubrics?limit=200', 200);
    expect(rubrics.total).toBe(rubrics.items.length);
    const farmyard = await check(read, 'GET', '/api/rubrics/{id}', '/api/rubrics/farmyard-54', 200);
    const rubricFile = parseYaml(readFileSync(`${ROOT}rubrics/farmyard.yaml`, 'utf8')) as Json;
    expect(await check(write, 'POST', '/api/rubrics', '/api/rubrics', 200, { body: rubricFile })).toMatchObject({ unchanged: 1 });
    const puzzles = await check(read, 'GET', '/api/puzzles', '/api/puzzles', 200);
    const puzzle = await check(read, 'GET', '/api/puzzles/{id}', `/api/puzzles/${puzzles.items[0].id}`, 200);
    const puzzleLine = JSON.stringify({ id: puzzle.id, rows: puzzle.rows, cols: puzzle.cols, layout: puzzle.layout, ...(puzzle.edges ? { edges: puzzle.edges } : {}), ...(puzzle.picture ? { picture: puzzle.picture } : {}), ...(puzzle.sizeBucket ? { sizeBucket: puzzle.sizeBucket } : {}), ...(puzzle.rubric ? { rubric: puzzle.rubric } : {}) });
    expect(await check(write, 'POST', '/api/puzzles', '/api/puzzles', 200, { body: puzzleLine, headers: { 'content-type': 'application/x-ndjson' } })).toEqual({ created: 0, updated: 0, unchanged: 1 });
    const runs = await check(read, 'GET', '/api/runs', '/api/runs', 200);
    expect(runs.items.map((r: Json) => r.name)).toContain('farmyard-describe');
    await check(read, 'GET', '/api/runs/{name}', '/api/runs/farmyard-describe', 200);

    // Answers and assemblies.
    const upload = [0, 1].map((i) => JSON.stringify({ id: `oa${i}`, task: 'describe', rubric: 'farmyard-54', text: `A red barn on the left and ${i + 2} pigs in the mud.` })).join('\n');
    const up = await check(write, 'POST', '/api/answers', '/api/answers?run=openapi-run&model=model-o', 200, { body: upload, headers: { 'content-type': 'application/x-ndjson' } });
    expect(up).toMatchObject({ imported: 2, unchanged: 0 });
    const answers = await check(read, 'GET', '/api/answers', '/api/answers?limit=1000', 200);
    expect(answers.total).toBe(answers.items.length);
    await check(read, 'GET', '/api/answers/{id}', `/api/answers/${up.answerIds[0]}`, 200);
    const asm = { run: 'openapi-asm', model: 'model-o', puzzle: puzzle.id, answer: puzzle.layout };
    expect(await check(write, 'POST', '/api/assemblies', '/api/assemblies', 201, { body: asm })).toMatchObject({ created: true, exactMatch: 1 });
    expect(await check(write, 'POST', '/api/assemblies', '/api/assemblies', 200, { body: asm })).toMatchObject({ created: false, exactMatch: 1 });
    const scores = await check(read, 'GET', '/api/assemblies', '/api/assemblies', 200);
    await check(read, 'GET', '/api/assemblies/{answerId}', `/api/assemblies/${scores.items[0].answerId}`, 200);

    // Grading one answer, and the grades read back.
    const grade = await check(write, 'POST', '/api/grades', '/api/grades', 200, { body: { answerId: up.answerIds[0], judge: 'lexical' } });
    expect(grade).toMatchObject({ answerId: up.answerIds[0], status: 'ok', judge: { id: 'lexical' } });
    expect(await check(read, 'GET', '/api/grades/{id}', `/api/grades/${grade.gradeId}`, 200)).toEqual(grade);
    const page = await check(read, 'GET', '/api/grades', '/api/grades?limit=1000', 200);
    expect(page.items.some((g: Json) => g.panel !== null)).toBe(true); // the seeded baseline panel's grades validate too

    // Labels and annotation.
    const item = farmyard.items[0].id;
    const labels = ['ann-x', 'ann-y'].map((rater) => JSON.stringify({ answer: 'oa1', run: 'openapi-run', item, rater, label: 'correct' })).join('\n');
    expect(await check(write, 'POST', '/api/labels', '/api/labels', 200, { body: labels, headers: { 'content-type': 'application/x-ndjson' } })).toEqual({ inserted: 2, replaced: 0, unchanged: 0, runs: ['openapi-run'] });
    await check(read, 'GET', '/api/labels', '/api/labels?run=openapi-run', 200);
    const queue = await check(annotate, 'GET', '/api/annotations/queue', '/api/annotations/queue?run=openapi-run', 200);
    expect(queue.items.map((q: Json) => q.answer).sort()).toEqual(['oa0', 'oa1']);
    expect(await check(annotate, 'POST', '/api/annotations', '/api/annotations', 200, { body: { answerId: up.answerIds[0], item, label: 'correct' } })).toEqual({ created: true, unchanged: false });

    // Reports over the seeded examples.
    const board = await check(read, 'GET', '/api/reports/leaderboard', '/api/reports/leaderboard', 200);
    expect(board.rows.length).toBeGreaterThan(0);
    await check(read, 'GET', '/api/reports/orientation', '/api/reports/orientation', 200);
    await check(read, 'GET', '/api/reports/ablation', '/api/reports/ablation', 200);
    await check(read, 'GET', '/api/reports/effort', '/api/reports/effort', 200);
    const calibration = await check(read, 'GET', '/api/reports/calibration', '/api/reports/calibration', 200);
    expect(calibration.judgeReports.length).toBeGreaterThan(0);
    const dts = await check(read, 'GET', '/api/reports/describe-then-solve', '/api/reports/describe-then-solve', 200);
    expect(dts.rows.length).toBeGreaterThan(0);
    const compare = await check(read, 'GET', '/api/reports/judge-compare', '/api/reports/judge-compare?run=farmyard-describe&a=lexical&b=lexical-strict', 200);
    expect(compare.humanLabelledPairs).toBeGreaterThan(0);

    // Run grading through the queue (enqueued only: no worker here), jobs, cancel.
    expect(await check(write, 'POST', '/api/runs/{id}/grade', '/api/runs/openapi-run/grade', 202, { body: { judge: 'lexical' } })).toMatchObject({ total: 2, alreadyGraded: 1, jobs: 1 });
    expect(await check(read, 'GET', '/api/runs/{id}/progress', '/api/runs/openapi-run/progress?judge=lexical', 200)).toMatchObject({ total: 2, done: 1, remaining: 1 });
    expect((await check(read, 'GET', '/api/jobs', '/api/jobs?run=openapi-run', 200)).jobs).toHaveLength(1);
    expect(await check(write, 'POST', '/api/runs/{id}/grade/cancel', '/api/runs/openapi-run/grade/cancel', 200, { body: { judge: 'lexical' } })).toEqual({ cancelled: 1 });

    // Statistics and calibration over posted data.
    await check(read, 'POST', '/api/stats/kappa', '/api/stats/kappa', 200, { body: { a: ['x', 'y', 'x'], b: ['x', 'y', 'y'] } });
    await check(read, 'POST', '/api/stats/fleiss', '/api/stats/fleiss', 200, { body: { data: [[2, 0], [1, 1], [0, 2]] } });
    await check(read, 'POST', '/api/stats/alpha', '/api/stats/alpha', 200, { body: { data: [[1, 2, 3], [1, 2, 2]], level: 'interval' } });
    await check(read, 'POST', '/api/stats/wilson', '/api/stats/wilson', 200, { body: { successes: 3, trials: 10 } });
    await check(read, 'POST', '/api/stats/corr', '/api/stats/corr', 200, { body: { x: [1, 2, 3, 4], y: [1, 3, 2, 4] } });
    await check(read, 'POST', '/api/stats/icc', '/api/stats/icc', 200, { body: { data: [[1, 2], [2, 3], [4, 4]] } });
    await check(read, 'POST', '/api/stats/mcnemar', '/api/stats/mcnemar', 200, { body: { b: 3, c: 7 } });
    const labelRows = [
      { answer: 'q1', item: 'a', rater: 'h1', kind: 'human', label: 'correct' },
      { answer: 'q1', item: 'a', rater: 'h2', kind: 'human', label: 'correct' },
      { answer: 'q1', item: 'a', rater: 'j', kind: 'judge', label: 'correct' },
      { answer: 'q2', item: 'a', rater: 'h1', kind: 'human', label: 'missing' },
      { answer: 'q2', item: 'a', rater: 'h2', kind: 'human', label: 'missing' },
      { answer: 'q2', item: 'a', rater: 'j', kind: 'judge', label: 'correct' },
    ];
    await check(read, 'POST', '/api/calibrate', '/api/calibrate', 200, { body: { scale: 'verdict', labels: labelRows } });

    // Keys.
    const key = await check(admin, 'POST', '/api/keys', '/api/keys', 201, { body: { scopes: ['annotate'], name: 'openapi-ann' } });
    expect((await check(admin, 'GET', '/api/keys', '/api/keys', 200)).items.map((k: Json) => k.name)).toContain('openapi-ann');

    // A campaign over the seeded farmyard descriptions, labelled by that key.
    const created = await check(admin, 'POST', '/api/campaigns', '/api/campaigns', 201, {
      body: { name: 'openapi', answers: { run: 'farmyard-describe' }, scales: { verdict: true, binary: { question: 'Faithful?' } }, annotators: ['openapi-ann'], overlap: 1 },
    });
    await check(admin, 'GET', '/api/campaigns', '/api/campaigns', 200);
    const next = await check(key.key, 'GET', '/api/campaigns/{ref}/next', '/api/campaigns/openapi/next', 200);
    await check(key.key, 'POST', '/api/campaigns/{ref}/labels', '/api/campaigns/openapi/labels', 200, { body: { answerId: next.next.answerId, marks: [{ scale: 'binary', label: true }] } });
    expect((await check(admin, 'GET', '/api/campaigns/{ref}', `/api/campaigns/${created.id}`, 200)).annotators[0]).toMatchObject({ name: 'openapi-ann' });
    await check(admin, 'GET', '/api/campaigns/{ref}/disagreements', '/api/campaigns/openapi/disagreements', 200);
    expect((await check(admin, 'GET', '/api/campaigns/{ref}/export', '/api/campaigns/openapi/export', 200)).rows.length).toBeGreaterThan(0);
    expect(await check(admin, 'DELETE', '/api/keys/{prefix}', `/api/keys/${key.prefix}`, 200)).toMatchObject({ prefix: key.prefix });

    // An error: the envelope, as every error status declares it.
    expect(await check(read, 'GET', '/api/grades/{id}', '/api/grades/2000000000', 404)).toMatchObject({ error: { code: 'not_found' } });

    const all = operations(doc).map((o) => `${o.method} ${o.path}`);
    expect(all.filter((o) => !validated.has(o) && !(o in NOT_CALLED))).toEqual([]);
    for (const o of Object.keys(NOT_CALLED)) expect(all, `${o} is still an operation`).toContain(o);
  }, 240_000);
});
