import { beforeAll, expect, it } from 'vitest';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';
import { operations, type OpenApiDoc } from './openapi-walk.ts';

/**
 * A filter whose value names nothing is 404 with the envelope, naming the parameter and the value, on
 * every operation of /openapi.json: before, `GET /api/grades?judge=<typo>`, `?model=`, `/api/answers?run=`
 * and the other list filters answered 200 with an empty list, so a typo read as "no data" (the pages
 * answer 404 for the same values since 55da652). A value that names something but matches no rows (a
 * known judge with no grades of a run, a run without answers) stays 200 with an empty list.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Op = { parameters?: Array<{ in: string; name: string }>; responses: Record<string, unknown> };

/** Query parameters that name a stored thing (a run, model, rubric, puzzle, judge, annotator, tag, answer). */
const NAMING = new Set(['run', 'model', 'rubric', 'puzzle', 'judge', 'annotator', 'tag', 'answer', 'a', 'b', 'sizeBucket']);
/** Query parameters that name nothing stored: paging, enumerations, numbers, flags. */
const NOT_NAMING = new Set([
  'limit', 'offset', 'cursor', 'status', 'task', 'kind', 'state', 'seed', 'scale', 'perception', 'metric',
  'threshold', 'perceptionThreshold', 'answerThreshold', 'top', 'resamples', 'waiting', 'version', 'humans', 'unverifiable',
]);
/** Naming parameters not checked here, and why. */
const EXEMPT: Record<string, string> = {
  'GET /api/annotations/queue annotator': "the key's own name: any other is 403 (test/api/annotation-integrity.test.ts)",
};

/** Each operation's naming filters with a value that names nothing; the rest of the query makes the request otherwise valid. */
const UNKNOWN: Array<{ op: string; path: string; param: string; value: string; key?: 'annotate' }> = [
  { op: 'GET /api/puzzles', path: '/api/puzzles', param: 'rubric', value: 'no-such-rubric' },
  // Size buckets are free text of the puzzles file (`~50`): `50` matched none, and read as "no puzzles".
  { op: 'GET /api/puzzles', path: '/api/puzzles', param: 'sizeBucket', value: '50' },
  { op: 'GET /api/runs', path: '/api/runs', param: 'model', value: 'no-such-model' },
  ...['run', 'model', 'rubric', 'puzzle'].map((param) => ({ op: 'GET /api/answers', path: '/api/answers', param, value: `no-such-${param}` })),
  ...['run', 'model', 'puzzle'].map((param) => ({ op: 'GET /api/assemblies', path: '/api/assemblies', param, value: `no-such-${param}` })),
  { op: 'GET /api/labels', path: '/api/labels', param: 'run', value: 'no-such-run' },
  { op: 'GET /api/labels', path: '/api/labels', param: 'annotator', value: 'no-such-annotator' },
  { op: 'GET /api/annotations/queue', path: '/api/annotations/queue', param: 'run', value: 'no-such-run', key: 'annotate' },
  ...['leaderboard', 'orientation', 'ablation', 'effort', 'calibration', 'describe-then-solve'].flatMap((r) =>
    ['run', 'model', 'rubric', 'judge'].map((param) => ({ op: `GET /api/reports/${r}`, path: `/api/reports/${r}`, param, value: `no-such-${param}` })),
  ),
  { op: 'GET /api/reports/ablation', path: '/api/reports/ablation', param: 'tag', value: 'no-such-tag' },
  { op: 'GET /api/reports/judge-compare', path: '/api/reports/judge-compare?a=lexical&b=lexical-strict', param: 'run', value: 'no-such-run' },
  { op: 'GET /api/reports/judge-compare', path: '/api/reports/judge-compare?run=farmyard-describe&b=lexical-strict', param: 'a', value: 'no-such-judge' },
  { op: 'GET /api/reports/judge-compare', path: '/api/reports/judge-compare?run=farmyard-describe&a=lexical', param: 'b', value: 'no-such-judge' },
  ...['run', 'model', 'judge'].map((param) => ({ op: 'GET /api/grades', path: '/api/grades', param, value: `no-such-${param}` })),
  { op: 'GET /api/grades', path: '/api/grades', param: 'answer', value: '2000000000' },
  { op: 'GET /api/runs/{id}/progress', path: '/api/runs/farmyard-describe/progress', param: 'judge', value: 'no-such-judge' },
  { op: 'GET /api/jobs', path: '/api/jobs', param: 'run', value: 'no-such-run' },
];

const withParam = (path: string, param: string, value: string) => `${path}${path.includes('?') ? '&' : '?'}${param}=${encodeURIComponent(value)}`;

describeDb('a filter value that names nothing', (ctx) => {
  const api = useApi(ctx);
  let doc: OpenApiDoc & { paths: Record<string, Record<string, Op>> };
  const send = async (path: string, o: { key?: 'annotate'; accept?: string } = {}) => {
    const res = await api.call(api.keys[o.key ?? 'read'], 'GET', path, o.accept ? { headers: { accept: o.accept } } : {});
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as Json };
  };

  beforeAll(async () => {
    await seedExamples(ctx.database);
    // A run without answers, of a model no other run is: it names something and matches nothing.
    await ctx.database.execute(`insert into runs (name, model) values ('empty-run', 'empty-model')`);
    doc = (await (await api.app.request('/openapi.json')).json()) as typeof doc;
  }, 180_000);

  it('classifies every query parameter of every GET operation, and checks each naming one', () => {
    const naming: string[] = [];
    for (const { method, path, op } of operations(doc)) {
      if (method !== 'GET') continue;
      for (const p of ((op as Op).parameters ?? []).filter((x) => x.in === 'query')) {
        expect(NAMING.has(p.name) || NOT_NAMING.has(p.name), `${method} ${path} ?${p.name}: add it to NAMING or NOT_NAMING`).toBe(true);
        if (NAMING.has(p.name)) naming.push(`${method} ${path} ${p.name}`);
      }
    }
    const checked = new Set(UNKNOWN.map((u) => `${u.op} ${u.param}`));
    expect(naming.filter((n) => !checked.has(n) && !(n in EXEMPT))).toEqual([]);
    expect([...checked].filter((c) => !naming.includes(c))).toEqual([]);
  });

  it('is 404 with the envelope naming the parameter and the value, declared by the operation, nothing written', async () => {
    const before = await rowCounts(ctx.database);
    const wrong: string[] = [];
    for (const u of UNKNOWN) {
      const path = withParam(u.path, u.param, u.value);
      const r = await send(path, u.key ? { key: u.key } : {});
      const [method, route] = u.op.split(' ') as [string, string];
      const declared = Object.keys(doc.paths[route]![method.toLowerCase()]!.responses);
      const message = String(r.body?.error?.message ?? '');
      const ok = r.status === 404 && r.body?.error?.code === 'not_found' && message.startsWith(u.param) && message.includes(u.value) && declared.includes('404');
      if (!ok) wrong.push(`${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 160)} (declares ${declared.join(',')})`);
    }
    expect(wrong).toEqual([]);
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('says which parameter and what is missing', async () => {
    expect((await send('/api/grades?judge=no-such-judge')).body).toEqual({
      error: { code: 'not_found', message: "judge 'no-such-judge' not found: no stored grade and no file in judges/ has that judge id" },
    });
    expect((await send('/api/answers?model=no-such-model')).body.error.message).toBe("model 'no-such-model' not found: no run is of that model");
    expect((await send('/api/puzzles?sizeBucket=50')).body.error.message).toMatch(/^sizeBucket: size bucket '50' not found: no puzzle is in that size bucket \(buckets: ~\d+/);
    expect((await send('/api/answers?run=farmyard-describe&puzzle=no-such-puzzle')).body.error.message).toBe("puzzle 'no-such-puzzle' not found");
    expect((await send('/api/reports/judge-compare?run=farmyard-describe&a=lexical&b=lexicl')).body.error.message).toMatch(/^b: judge 'lexicl' not found/);
    expect((await send('/api/reports/ablation?tag=taged')).body.error.message).toBe("tag 'taged' not found: no run has that condition tag (tags: tagged)");
    // A CSV client gets the same envelope, not an empty CSV.
    const csv = await send('/api/answers?run=no-such-run', { accept: 'text/csv' });
    expect([csv.status, csv.type, csv.body]).toEqual([404, expect.stringMatching(/json/), { error: { code: 'not_found', message: "run 'no-such-run' not found" } }]);
  });

  it('stays 200 with an empty list for a value that names something and matches no rows', async () => {
    const empty = async (path: string, key?: 'annotate') => {
      const r = await send(path, key ? { key } : {});
      expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 160)}`).toBe(200);
      return r.body;
    };
    expect((await empty('/api/grades?judge=panel-lexical&run=IIW-P5B')).total).toBe(0);
    // A judge of judges/ that never graded is a judge, with no grades.
    expect((await empty('/api/grades?judge=claude')).total).toBe(0);
    expect((await empty('/api/grades?run=empty-run')).total).toBe(0);
    expect((await empty('/api/answers?run=empty-run')).total).toBe(0);
    expect((await empty('/api/answers?model=empty-model')).total).toBe(0);
    expect((await empty('/api/answers?run=IIW-P5B&rubric=farmyard-54')).total).toBe(0);
    expect((await empty('/api/assemblies?model=empty-model')).total).toBe(0);
    expect((await empty('/api/runs?model=empty-model')).total).toBe(1);
    expect((await empty('/api/puzzles?rubric=iiw-aar_test_04600')).total).toBe(0);
    expect((await empty('/api/labels?run=empty-run')).total).toBe(0);
    // An annotator is known by a label, a key or a campaign: a key that has labelled nothing yet.
    expect((await empty(`/api/labels?annotator=${encodeURIComponent('test annotate')}`)).total).toBe(0);
    expect((await empty('/api/annotations/queue?run=empty-run', 'annotate')).total).toBe(0);
    expect((await empty('/api/jobs?run=empty-run')).jobs).toEqual([]);
    expect((await empty('/api/reports/orientation?run=empty-run')).rows).toEqual([]);
    expect((await empty('/api/reports/leaderboard?model=empty-model&judge=lexical')).rows).toEqual([]);
    expect((await empty('/api/reports/ablation?tag=tagged&model=empty-model')).rows).toEqual([]);
  });
});
