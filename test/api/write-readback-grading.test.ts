import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createKey } from '../../src/services/keys.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import type { OpenApiDoc } from './openapi-walk.ts';
import { allCounts, lines, NDJSON, recorder, WRITE_ROUTES, writeOps } from './write-readback-fixture.ts';

/**
 * Mission H6 audit, part 2 (grades, the grading queue, campaigns, the stateless computations) and the
 * audit's completeness: every write route of /openapi.json has its read-back case in one of the files.
 */

const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Record<string, unknown>;

describeDb('write read-back: grading, queue, campaigns', (ctx) => {
  const api = useApi(ctx);
  const r = recorder(api);
  const admin = () => api.keys.admin;
  const refused = (what: string, status: number, key: string, method: string, path: string, body?: unknown, type?: string) => r.refused(ctx.database, what, status, key, method, path, body, type);
  const people: Record<'ann' | 'bea' | 'judy', string> = { ann: '', bea: '', judy: '' };
  let ids: number[] = [];

  beforeAll(async () => {
    for (const n of ['ann', 'bea', 'judy'] as const) people[n] = (await createKey(ctx.database, { scopes: ['annotate'], name: n })).key;
    expect((await api.call(admin(), 'POST', '/api/rubrics', { body: rubric })).status).toBe(200);
    const rows = ['A large red barn with white trim stands on the left, doors open.', 'Three pink pigs wallow in a band of mud.', 'A farmer drives a green tractor.'].map((text, i) => ({ id: `g${i + 1}`, run: 'rg', model: 'm', task: 'describe', rubric: 'farmyard-54', text }));
    const up = await api.call(admin(), 'POST', '/api/answers', { body: lines(...rows), headers: { 'content-type': NDJSON } });
    ids = ((await up.json()) as { answerIds: number[] }).answerIds;
  });

  it('every write route of /openapi.json has a read-back case', async () => {
    expect(await writeOps(api)).toEqual(Object.keys(WRITE_ROUTES).sort());
  });

  it('grades: the stored grade is the reported one; a regrade replaces it; answer text is stored under its run and model', async () => {
    await refused('grades: misspelled field', 400, admin(), 'POST', '/api/grades', { answerId: ids[0], judge: 'lexical', unverifable: 'exclude' });
    await refused('grades: run with a stored answer', 400, admin(), 'POST', '/api/grades', { answerId: ids[0], judge: 'lexical', run: 'x' });
    // Before: 200 and a grade against the answer's rubric's latest version, the version asked for dropped unsaid.
    const version = await refused('grades: rubricVersion without rubric', 400, admin(), 'POST', '/api/grades', { answerId: ids[0], judge: 'lexical', rubricVersion: 1 });
    expect(version.body.error.message).toBe('body: rubricVersion: give rubric too (the id of the rubric this is a version of)');
    const before = await allCounts(ctx.database);
    const g = await r.send(admin(), 'POST', '/api/grades', { answerId: ids[0], judge: 'lexical' });
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({ answerId: ids[0], status: 'ok', judge: { id: 'lexical' }, rubric: { id: 'farmyard-54', version: 1 } });
    expect((await allCounts(ctx.database)).grades! - before.grades!).toBe(1);
    const stored = (await r.send(admin(), 'GET', `/api/grades/${g.body.gradeId}`)).body;
    expect(stored).toEqual(g.body);
    const again = await r.send(admin(), 'POST', '/api/grades', { answerId: ids[0], judge: 'lexical' });
    expect([again.body.gradeId, again.body.f1, again.body.completeness]).toEqual([g.body.gradeId, g.body.f1, g.body.completeness]);
    expect((await allCounts(ctx.database)).grades! - before.grades!).toBe(1);
    const adhoc = await r.send(admin(), 'POST', '/api/grades', { answer: 'A red barn.', run: 'rg-adhoc', model: 'mm', rubric: 'farmyard-54', rubricVersion: 1, judge: 'lexical' });
    expect(adhoc.status).toBe(200);
    expect((await r.send(admin(), 'GET', `/api/answers/${adhoc.body.answerId}`)).body).toMatchObject({ run: 'rg-adhoc', model: 'mm', text: 'A red barn.', rubric: 'farmyard-54', task: 'describe' });
    expect((await r.send(admin(), 'GET', `/api/grades/${adhoc.body.gradeId}`)).body).toEqual(adhoc.body);
  });

  it('run grading: jobs reported are jobs queued; cancel cancels them; retry retries only failed ones', async () => {
    await refused('enqueue: misspelled field', 400, admin(), 'POST', '/api/runs/rg/grade', { judge: 'lexical', rmp: 5 });
    await refused('enqueue: unknown run', 404, admin(), 'POST', '/api/runs/ghost/grade', { judge: 'lexical' });
    const before = await allCounts(ctx.database);
    const q = await r.send(admin(), 'POST', '/api/runs/rg/grade', { judge: 'lexical' });
    expect(q.status).toBe(202);
    expect(q.body).toMatchObject({ total: 3, alreadyGraded: 1, jobs: 2, resumed: 0, retried: 0 });
    const after = await allCounts(ctx.database);
    expect((after['pgboss.job:created'] ?? 0) - (before['pgboss.job:created'] ?? 0)).toBe(2);
    expect((after.grading_runs ?? 0) - (before.grading_runs ?? 0)).toBe(1);
    const jobs = (await r.send(admin(), 'GET', '/api/jobs?run=rg')).body;
    expect(jobs.jobs.map((j: { answerId: number; gradingRunId: number; state: string }) => [j.answerId, j.gradingRunId, j.state]).sort()).toEqual([
      [ids[1], q.body.gradingRunId, 'created'],
      [ids[2], q.body.gradingRunId, 'created'],
    ]);
    const progress = (await r.send(admin(), 'GET', '/api/runs/rg/progress?judge=lexical')).body;
    expect(progress).toMatchObject({ total: 3, done: 1, remaining: 2, jobs: { queued: 2 } });
    const twice = await r.send(admin(), 'POST', '/api/runs/rg/grade', { judge: 'lexical' });
    // Documented: jobs counts the answers' jobs, new or already waiting (the same job id is never queued twice).
    expect(twice.body).toMatchObject({ gradingRunId: q.body.gradingRunId, jobs: 2, resumed: 0 });
    expect(await allCounts(ctx.database)).toEqual(after);
    await refused('cancel: misspelled field', 400, admin(), 'POST', '/api/runs/rg/grade/cancel', { jugde: 'lexical' });
    const c = await r.send(admin(), 'POST', '/api/runs/rg/grade/cancel', { judge: 'lexical' });
    expect(c.body).toEqual({ cancelled: 2 });
    const cancelled = await allCounts(ctx.database);
    expect([cancelled['pgboss.job:created'] ?? 0, cancelled['pgboss.job:cancelled'] ?? 0]).toEqual([(after['pgboss.job:created'] ?? 0) - 2, (after['pgboss.job:cancelled'] ?? 0) + 2]);
    expect((await r.send(admin(), 'POST', '/api/runs/rg/grade/cancel', { judge: 'lexical' })).body).toEqual({ cancelled: 0 });
    await refused('retry: misspelled field', 400, admin(), 'POST', '/api/jobs/retry', { run: 'rg', idz: [] });
    await refused('retry: nothing named', 400, admin(), 'POST', '/api/jobs/retry', {});
    await refused('retry: unknown job id', 404, admin(), 'POST', '/api/jobs/retry', { ids: ['00000000-0000-4000-8000-000000000000'] });
    const cancelledJob = (await r.send(admin(), 'GET', '/api/jobs?run=rg&state=cancelled')).body.jobs[0].id as string;
    await refused('retry: a job that is not failed', 409, admin(), 'POST', '/api/jobs/retry', { ids: [cancelledJob] });
    expect((await r.send(admin(), 'POST', '/api/jobs/retry', { run: 'rg' })).body).toEqual({ retried: 0 });
    const resumed = await r.send(admin(), 'POST', '/api/runs/rg/grade', { judge: 'lexical' });
    expect(resumed.body).toMatchObject({ gradingRunId: q.body.gradingRunId, jobs: 2, resumed: 2 });
    expect((await allCounts(ctx.database))['pgboss.job:created']).toBe(after['pgboss.job:created']);
  });

  it('retry: ids with a run retry jobs of that run only', async () => {
    const waiting = (await r.send(admin(), 'GET', '/api/jobs?run=rg&state=created')).body.jobs as Array<{ id: string }>;
    expect(waiting).toHaveLength(2);
    // A worker's final failure, as pg-boss records it (no worker runs here).
    await ctx.database.execute(`update pgboss.job set state = 'failed', output = '{"message":"boom"}'::jsonb where id = $1::uuid`, [waiting[0]!.id]);
    // Before: 200 {retried: 1}, the job of run rg retried though the request named run rg-adhoc.
    const other = await refused('retry: a job of another run', 404, admin(), 'POST', '/api/jobs/retry', { ids: [waiting[0]!.id], run: 'rg-adhoc' });
    expect(other.body.error.message).toBe(`grading job ${waiting[0]!.id} is of run 'rg', not 'rg-adhoc' (nothing retried)`);
    // Before: 200 {retried: 1}, an empty id list read as no list and every failed job of the run retried.
    await refused('retry: an empty id list', 400, admin(), 'POST', '/api/jobs/retry', { ids: [], run: 'rg' });
    expect((await r.send(admin(), 'GET', '/api/jobs?run=rg')).body.counts.failed).toBe(1);
    expect((await r.send(admin(), 'POST', '/api/jobs/retry', { ids: [waiting[0]!.id], run: 'rg' })).body).toEqual({ retried: 1 });
    expect((await r.send(admin(), 'GET', '/api/jobs?run=rg')).body.counts.failed).toBe(0);
    expect((await r.send(admin(), 'POST', '/api/runs/rg/grade/cancel', { judge: 'lexical' })).body).toEqual({ cancelled: 2 });
  });

  it("run grading: a provider judge's rpm/tpm are stored as given; one left out is kept, null clears it", async () => {
    const limits = async () => (await ctx.database.execute(`select rpm, tpm from rate_limits where key like 'anthropic:%'`)).rows.map((x) => [x.rpm === null ? null : Number(x.rpm), x.tpm === null ? null : Number(x.tpm)]);
    await refused('enqueue: rpm under 1', 400, admin(), 'POST', '/api/runs/rg-adhoc/grade', { judge: 'claude', rpm: 0 });
    await refused('enqueue: limits on the lexical judge', 400, admin(), 'POST', '/api/runs/rg-adhoc/grade', { judge: 'lexical', rpm: 5 });
    expect((await r.send(admin(), 'POST', '/api/runs/rg-adhoc/grade', { judge: 'claude', rpm: 30, tpm: 1000 })).status).toBe(202);
    expect(await limits()).toEqual([[30, 1000]]);
    await r.send(admin(), 'POST', '/api/runs/rg-adhoc/grade', { judge: 'claude', rpm: 60 });
    expect(await limits()).toEqual([[60, 1000]]);
    await r.send(admin(), 'POST', '/api/runs/rg-adhoc/grade', { judge: 'claude', tpm: null });
    expect(await limits()).toEqual([[60, null]]);
    await r.send(admin(), 'POST', '/api/runs/rg-adhoc/grade', { judge: 'claude' });
    expect(await limits()).toEqual([[60, null]]);
    expect((await r.send(admin(), 'POST', '/api/runs/rg-adhoc/grade/cancel', { judge: 'claude' })).body).toEqual({ cancelled: 1 });
  });

  it('campaigns: the spec is kept, queued counts are rows, labels and final labels are stored as reported', async () => {
    const spec = {
      name: 'rb-study',
      answers: { run: 'rg', task: 'describe', filter: { rubric: 'farmyard-54' } },
      scales: { binary: { question: 'Accept?' }, numeric: { k: 3, anchors: ['bad', 'ok', 'good'] }, verdict: true },
      annotators: ['ann', 'bea'],
      adjudicators: ['judy'],
      overlap: 2,
      hide: { reference: true },
      order: { disagreementFirst: false, auditShare: 0, seed: 7 },
    };
    await refused('campaigns: misspelled field', 400, admin(), 'POST', '/api/campaigns', { ...spec, overlpa: 1 });
    await refused('campaigns: misspelled order field', 400, admin(), 'POST', '/api/campaigns', { ...spec, order: { ...spec.order, sed: 1 } });
    await refused('campaigns: overlap above the annotators', 400, admin(), 'POST', '/api/campaigns', { ...spec, overlap: 3 });
    // Answers named in filter.answers are each queued or the request is refused: before, 201 with the named ones that were missing left out.
    const ghost = await refused('campaigns: a named answer that is not there', 400, admin(), 'POST', '/api/campaigns', { ...spec, answers: { ...spec.answers, filter: { answers: ['g1', 'ghost', 'g2'] } } });
    expect(ghost.body.error.message).toBe("campaign 'rb-study': answers.filter.answers: 'ghost' matches no answer the selector takes (run 'rg', task 'describe'; answers with text and a rubric); nothing created");
    const before = await allCounts(ctx.database);
    const made = await r.send(admin(), 'POST', '/api/campaigns', spec);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'rb-study', overlap: 2, annotators: ['ann', 'bea'], adjudicators: ['judy'] });
    const queued = made.body.queued.disagreement + made.body.queued.audit + made.body.queued.rest;
    const after = await allCounts(ctx.database);
    expect([queued, after.campaign_answers! - before.campaign_answers!, after.campaigns! - before.campaigns!]).toEqual([3, 3, 1]);
    const progress = (await r.send(admin(), 'GET', '/api/campaigns/rb-study')).body;
    expect([progress.answers, progress.perAnswer.map((a: { answerId: number }) => a.answerId).sort()]).toEqual([3, [...ids].sort()]);
    await refused('campaigns: name taken', 409, admin(), 'POST', '/api/campaigns', spec);
    const next = (await r.send(people.ann, 'GET', '/api/campaigns/rb-study/next')).body.next;
    expect(next.workspace).toMatchObject({ scales: expect.arrayContaining(['binary', 'numeric', 'verdict']), hideReference: true, binaryQuestion: 'Accept?', numeric: { k: 3, anchors: ['bad', 'ok', 'good'] } });
    const a = next.answerId as number;
    const marks = [{ scale: 'binary', label: true }, { scale: 'numeric', label: 3 }, { scale: 'verdict', item: 'barn', label: 'correct' }];
    await refused('campaign labels: misspelled mark field', 400, people.ann, 'POST', '/api/campaigns/rb-study/labels', { answerId: a, marks: [{ scale: 'verdict', itme: 'barn', label: 'correct' }] });
    const saved = await r.send(people.ann, 'POST', '/api/campaigns/rb-study/labels', { answerId: a, marks });
    // done stays false: the verdict scale asks for every rubric item, and one is marked.
    expect(saved.body).toEqual({ created: 3, updated: 0, unchanged: 0, done: false });
    const labelled = (await r.send(admin(), 'GET', '/api/labels?annotator=ann')).body.items.filter((l: { answerId: number }) => l.answerId === a);
    expect(labelled.map((l: { item: string; label: string }) => [l.item, l.label]).sort()).toEqual([['answer:binary', 'true'], ['answer:numeric', '3'], ['barn', 'correct']].sort());
    expect((await r.send(people.ann, 'POST', '/api/campaigns/rb-study/labels', { answerId: a, marks })).body).toEqual({ created: 0, updated: 0, unchanged: 3, done: false }); // the same marks again: nothing written, none added
    await r.send(people.bea, 'GET', '/api/campaigns/rb-study/next');
    expect((await r.send(people.bea, 'POST', '/api/campaigns/rb-study/labels', { answerId: a, marks: [{ scale: 'binary', label: false }] })).body).toMatchObject({ created: 1, updated: 0 });
    const adj = { answerId: a, unit: 'answer:binary', label: true, note: 'fence shown' };
    await refused('adjudication: misspelled field', 400, people.judy, 'POST', '/api/campaigns/rb-study/adjudications', { ...adj, nute: 'x' });
    await refused('adjudication: not an adjudicator', 403, people.bea, 'POST', '/api/campaigns/rb-study/adjudications', adj);
    const fin = await r.send(people.judy, 'POST', '/api/campaigns/rb-study/adjudications', adj);
    expect(fin.body).toMatchObject({ answerId: a, unit: 'answer:binary', label: 'true', adjudicator: 'judy', note: 'fence shown', replaced: false });
    const dis = (await r.send(admin(), 'GET', '/api/campaigns/rb-study/disagreements')).body.disagreements.find((d: { answerId: number; unit: string }) => d.answerId === a && d.unit === 'answer:binary');
    expect(dis.adjudication).toEqual({ answerId: a, unit: 'answer:binary', label: 'true', adjudicator: 'judy', note: 'fence shown', createdAt: fin.body.createdAt });
    const twice = await r.send(people.judy, 'POST', '/api/campaigns/rb-study/adjudications', { ...adj, label: false, note: 'on second look' });
    expect(twice.body).toMatchObject({ label: 'false', note: 'on second look', replaced: true });
    const exported = (await r.send(admin(), 'GET', '/api/campaigns/rb-study/export')).body.rows.filter((x: { source: string }) => x.source === 'adjudication');
    expect(exported.map((x: { label: string; note: string }) => [x.label, x.note])).toEqual([['false', 'on second look']]);
  });

  it('stats and calibrate: each answers its example and writes nothing; an unknown field is refused', async () => {
    const doc = (await (await api.app.request('/openapi.json')).json()) as OpenApiDoc & { paths: Record<string, Record<string, { requestBody: { content: Record<string, { example: Record<string, unknown> }> } }>> };
    for (const path of ['/api/calibrate', ...['kappa', 'fleiss', 'alpha', 'wilson', 'corr', 'icc', 'mcnemar'].map((s) => `/api/stats/${s}`)]) {
      const example = doc.paths[path]!.post!.requestBody.content['application/json']!.example;
      const before = await allCounts(ctx.database);
      const ok = await r.send(api.keys.read, 'POST', path, example);
      expect(ok.status, path).toBe(200);
      expect(await allCounts(ctx.database), path).toEqual(before);
      await refused(`${path}: unknown field`, 400, api.keys.read, 'POST', path, { ...example, extra: 1 });
    }
  });

  it('sent every write route given to this file', () => {
    expect(r.missing('grading')).toEqual([]);
  });
});
