import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { useApi } from './app-fixture.ts';

const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Record<string, unknown>;
const truth4 = JSON.parse(readFileSync(`${FIXTURES}grid-truth-4x4.json`, 'utf8')) as { rows: number; cols: number; layout: string[][] };
const JSONL = { 'content-type': 'application/x-ndjson' };

type ErrorBody = { error: { code: string; message: string } };
const errorOf = async (res: Response): Promise<ErrorBody['error']> => ((await res.json()) as ErrorBody).error;

describeDb('API resources', (ctx) => {
  const api = useApi(ctx);

  it('imports a rubric and a puzzle, then lists them as JSON and as CSV', async () => {
    const r = await api.call(api.keys.write, 'POST', '/api/rubrics', { body: rubric });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ created: 1, rubrics: [{ slug: 'farmyard-54', version: 1, outcome: 'created' }] });
    const puzzle = JSON.stringify({ id: 'p4', ...truth4, sizeBucket: '~16' });
    const p = await api.call(api.keys.write, 'POST', '/api/puzzles', { body: puzzle + '\n', headers: JSONL });
    expect(p.status).toBe(200);
    const list = (await (await api.call(api.keys.read, 'GET', '/api/puzzles')).json()) as { items: Array<{ id: string; pieces: number }>; total: number };
    expect(list.total).toBe(1);
    expect(list.items[0]).toMatchObject({ id: 'p4', pieces: 16 });
    const csv = await api.call(api.keys.read, 'GET', '/api/rubrics', { headers: { accept: 'text/csv' } });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('x-total-count')).toBe('1');
    const lines = (await csv.text()).split('\r\n');
    expect(lines[0]).toBe('id,title,latestVersion,items,createdAt');
    expect(lines[1]).toMatch(/^farmyard-54,Farmyard,1,17,\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  });

  it('scores and stores a submitted assembly (perfect: every metric 1; transposed: known values)', async () => {
    const perfect = await api.call(api.keys.write, 'POST', '/api/assemblies', {
      body: { run: 'run-a', model: 'model-a', puzzle: 'p4', id: 'a1', answer: truth4.layout },
    });
    expect(perfect.status).toBe(201);
    expect(await perfect.json()).toMatchObject({ created: true, status: 'valid', direct: 1, exactMatch: 1, neighbour: 1, adjacency: 1, proximity: 1 });
    // Transpose of the truth: only the diagonal is in place (4 of 16); no ordered pair survives
    // (H pairs become V pairs), yet every pair stays 4-adjacent.
    const transposed = truth4.layout.map((_, r) => truth4.layout.map((row) => row[r]!));
    const t = await api.call(api.keys.write, 'POST', '/api/assemblies', {
      body: { run: 'run-a', model: 'model-a', puzzle: 'p4', id: 'a2', answer: transposed.map((r) => r.join(' ')).join('\n') },
    });
    expect(t.status).toBe(201);
    expect(await t.json()).toMatchObject({ direct: 0.25, neighbour: 0, adjacency: 1 });
    // Idempotent: the same content again is 200, not a second answer.
    const again = await api.call(api.keys.write, 'POST', '/api/assemblies', {
      body: { run: 'run-a', model: 'model-a', puzzle: 'p4', id: 'a1', answer: truth4.layout },
    });
    expect(again.status).toBe(200);
    const stored = (await (await api.call(api.keys.read, 'GET', '/api/assemblies?run=run-a')).json()) as { total: number; items: Array<{ answer: string; direct: number }> };
    expect(stored.total).toBe(2);
    expect(stored.items.map((s) => [s.answer, s.direct])).toEqual([
      ['a1', 1],
      ['a2', 0.25],
    ]);
    // a1 created the run (general path), a2 took the one-statement fast path: the rows must agree.
    const rows = (await (await api.call(api.keys.read, 'GET', '/api/answers?run=run-a')).json()) as { items: Array<Record<string, unknown>> };
    const shape = ({ task, status, puzzle, rubric, model, run, meta }: Record<string, unknown>) => ({ task, status, puzzle, rubric, model, run, meta });
    expect(rows.items.map(shape)).toEqual([
      { task: 'assemble', status: 'ok', puzzle: 'p4', rubric: null, model: 'model-a', run: 'run-a', meta: {} },
      { task: 'assemble', status: 'ok', puzzle: 'p4', rubric: null, model: 'model-a', run: 'run-a', meta: {} },
    ]);
    const conflict = await api.call(api.keys.write, 'POST', '/api/assemblies', {
      body: { run: 'run-a', model: 'model-a', puzzle: 'p4', id: 'a1', answer: 'something else' },
    });
    expect(conflict.status).toBe(400);
    expect((await errorOf(conflict)).message).toMatch(/already exists with different content/);
  });

  it('takes concurrent first submissions to a new run without losing any', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api.call(api.keys.write, 'POST', '/api/assemblies', { body: { run: 'race', model: 'model-r', puzzle: 'p4', id: `r${i}`, answer: truth4.layout } }).then((r) => r.status),
      ),
    );
    expect(statuses).toEqual(Array(12).fill(201));
    const runs = await ctx.database.execute(`select count(*)::int as n from runs where name = 'race'`);
    expect(runs.rows[0].n).toBe(1);
  });

  it('writes concurrent submissions together, each with its own answer and score; a repeated id is not duplicated', async () => {
    const shifted = truth4.layout.map((row) => [...row.slice(1), row[0]!]);
    const bodies: Array<{ run: string; model: string; puzzle: string; id: string; answer: string | string[][] }> = Array.from({ length: 20 }, (_, i) => ({
      run: 'race',
      model: 'model-r',
      puzzle: 'p4',
      id: `b${i}`,
      answer: i % 2 ? shifted : truth4.layout,
    }));
    bodies.push({ ...bodies[3]! });
    const before = await rowCounts(ctx.database);
    const res = await Promise.all(bodies.map((body) => api.call(api.keys.write, 'POST', '/api/assemblies', { body })));
    const statuses = res.map((r) => r.status);
    // b3 twice at once: whichever the server takes first creates it (201), the other is the idempotent
    // repeat (200) — concurrent requests carry no order, so only the pair is fixed.
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect([statuses[3], statuses[20]].sort()).toEqual([200, 201]);
    const differing = await api.call(api.keys.write, 'POST', '/api/assemblies', { body: { ...bodies[3]!, answer: 'different text' } });
    expect(differing.status).toBe(400);
    const docs = (await Promise.all(res.slice(0, 20).map((r) => r.json()))) as Array<{ answerId: number; direct: number }>;
    expect(new Set(docs.map((d) => d.answerId)).size).toBe(20);
    docs.forEach((d, i) => expect(d.direct).toBe(i % 2 ? 0 : 1));
    const stored = (await (await api.call(api.keys.read, 'GET', `/api/assemblies/${docs[5]!.answerId}`)).json()) as { direct: number; neighbour: number };
    expect(stored.direct).toBe(0);
    // Rotating every row left by one keeps 2 of the 3 horizontal pairs of each row (8 of 12) and, since
    // whole columns move together, all 12 vertical pairs: (8 + 12) / 24.
    expect(stored.neighbour).toBeCloseTo(20 / 24, 12);
    const after = await rowCounts(ctx.database);
    expect(after.answers! - before.answers!).toBe(20);
    expect(after.assembly_scores! - before.assembly_scores!).toBe(20);
  });

  it('uploads answers as JSON Lines and pages through them', async () => {
    const lines = [1, 2, 3].map((i) => JSON.stringify({ id: `d${i}`, task: 'describe', rubric: 'farmyard-54', text: `answer, "${i}"` }));
    const r = await api.call(api.keys.write, 'POST', '/api/answers?run=run-b&model=model-b&tags=tagged,x', { body: lines.join('\n'), headers: JSONL });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ imported: 3, runs: [{ name: 'run-b', model: 'model-b', created: true }] });
    const page = (await (await api.call(api.keys.read, 'GET', '/api/answers?run=run-b&limit=2&offset=1')).json()) as {
      total: number;
      limit: number;
      offset: number;
      items: Array<{ externalId: string; runTags: string[] }>;
    };
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.items.map((a) => a.externalId)).toEqual(['d2', 'd3']);
    expect(page.items[0]!.runTags).toEqual(['tagged', 'x']);
    const csv = await (await api.call(api.keys.read, 'GET', '/api/answers?run=run-b&limit=1', { headers: { accept: 'text/csv' } })).text();
    // The text holds a comma and quotes: quoted, quotes doubled (RFC 4180); arrays as JSON.
    expect(csv).toContain(',"answer, ""1""",');
    expect(csv).toContain(',"[""tagged"",""x""]",');
  });

  it('rejects bad input with the envelope naming the problem, and writes nothing', async () => {
    const before = await rowCounts(ctx.database);
    const cases: Array<[string, string, unknown, Record<string, string> | undefined, number, string, RegExp]> = [
      ['wrong type', '/api/assemblies', { run: 'r', model: 'm', puzzle: 5, answer: 'x' }, undefined, 400, 'bad_input', /^body\.puzzle: /],
      ['unknown field', '/api/assemblies', { run: 'r', model: 'm', puzzle: 'p4', answer: 'x', extra: 1 }, undefined, 400, 'bad_input', /extra/],
      ['unknown puzzle', '/api/assemblies', { run: 'r9', model: 'm', puzzle: 'nope', answer: 'x' }, undefined, 400, 'bad_input', /unknown puzzle 'nope'/],
      ['malformed JSON', '/api/assemblies', '{"run": ', undefined, 400, 'bad_input', /json/i],
      [
        'malformed JSONL line',
        '/api/answers?run=r9&model=m',
        `${JSON.stringify({ id: 'ok1', task: 'describe', rubric: 'farmyard-54', text: 'fine' })}\n{"id": "x2", oops}\n`,
        JSONL,
        400,
        'bad_input',
        /^body:2: not valid JSON/,
      ],
      [
        'unknown rubric on line 2',
        '/api/answers?run=r9&model=m',
        [{ id: 'ok1', task: 'describe', rubric: 'farmyard-54', text: 'a' }, { id: 'ok2', task: 'describe', rubric: 'ghost', text: 'b' }].map((l) => JSON.stringify(l)).join('\n'),
        JSONL,
        400,
        'bad_input',
        /^body:2: rubric: unknown rubric 'ghost'/,
      ],
      ['rubric with a bad weight', '/api/rubrics', { ...rubric, id: 'other', items: [{ id: 'a', text: 't', weight: -1 }] }, undefined, 400, 'bad_input', /^body\.items\[0\]\.weight: /],
      ['label for an unknown answer', '/api/labels', JSON.stringify({ answer_id: 999999, rater: 'h', label: 'correct' }), JSONL, 400, 'bad_input', /unknown answer 999999/],
    ];
    for (const [what, path, body, headers, status, code, message] of cases) {
      const res = await api.call(api.keys.admin, 'POST', path, { body, headers });
      expect(res.status, what).toBe(status);
      const err = await errorOf(res);
      expect(err.code, what).toBe(code);
      expect(err.message, what).toMatch(message);
    }
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('answers unknown ids and routes with a 404 envelope', async () => {
    for (const path of ['/api/answers/999999', '/api/rubrics/nope', '/api/puzzles/nope', '/api/runs/nope', '/api/assemblies/999999', '/api/nothing-here']) {
      const res = await api.call(api.keys.read, 'GET', path);
      expect(res.status, path).toBe(404);
      expect((await errorOf(res)).code).toBe('not_found');
    }
    const bad = await api.call(api.keys.read, 'GET', '/api/answers/abc');
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).message).toMatch(/^path\.id: /);
    const page = await api.call(api.keys.read, 'GET', '/api/answers?limit=0');
    expect((await errorOf(page)).message).toMatch(/^query\.limit: /);
  });

  it('lets an annotate key label from its queue, and nothing else', async () => {
    const queue = (await (await api.call(api.keys.annotate, 'GET', '/api/annotations/queue')).json()) as {
      total: number;
      items: Array<{ answerId: number; answer: string }>;
    };
    expect(queue.total).toBe(3);
    const first = queue.items[0]!;
    const saved = await api.call(api.keys.annotate, 'POST', '/api/annotations', { body: { answerId: first.answerId, item: 'barn', label: 'correct' } });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual({ created: true, unchanged: false });
    const after = (await (await api.call(api.keys.annotate, 'GET', '/api/annotations/queue')).json()) as { total: number };
    expect(after.total).toBe(2);
    const badItem = await api.call(api.keys.annotate, 'POST', '/api/annotations', { body: { answerId: first.answerId, item: 'no-such-item', label: 'correct' } });
    expect(badItem.status).toBe(400);
    expect((await errorOf(badItem)).message).toMatch(/unknown item 'no-such-item'/);
    expect((await api.call(api.keys.annotate, 'GET', '/api/answers')).status).toBe(403);
  });

  it('manages keys over the API: create shows the key once, revoke makes it 401', async () => {
    const created = await api.call(api.keys.admin, 'POST', '/api/keys', { body: { scopes: ['read'], name: 'ci' } });
    expect(created.status).toBe(201);
    const k = (await created.json()) as { key: string; prefix: string };
    expect(k.key).toMatch(new RegExp(`^assay_${k.prefix}_[A-Za-z0-9_-]{43}$`));
    expect((await api.call(k.key, 'GET', '/api/runs')).status).toBe(200);
    const listed = JSON.stringify(await (await api.call(api.keys.admin, 'GET', '/api/keys')).json());
    expect(listed).toContain(k.prefix);
    expect(listed).not.toContain(k.key);
    const stored = await ctx.database.execute('select hash from api_keys where prefix = $1', [k.prefix]);
    expect(stored.rows[0].hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await api.call(api.keys.admin, 'DELETE', `/api/keys/${k.prefix}`)).status).toBe(200);
    const after = await api.call(k.key, 'GET', '/api/runs');
    expect(after.status).toBe(401);
  });
});

describeDb('per-key rate limit', (ctx) => {
  const api = useApi(ctx, { rateLimitPerMinute: 3 });
  it('answers 429 with Retry-After past the limit, per key', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api.call(api.keys.read, 'GET', '/api/runs')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const res = await api.call(api.keys.read, 'GET', '/api/runs');
    expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await errorOf(res)).code).toBe('rate_limited');
    // Another key has its own window.
    expect((await api.call(api.keys.write, 'GET', '/api/runs')).status).toBe(200);
  });
});
