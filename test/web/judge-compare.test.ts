import { beforeAll, expect, it } from 'vitest';
import { JudgeCompareSchema } from '../../src/api/routes/judge-compare-report.ts';
import { useApi } from '../api/app-fixture.ts';
import { describeDb } from '../helpers/db.ts';
import { seedJudgeCompare } from '../services/judge-compare-fixture.ts';

/** GET /api/reports/judge-compare and the /judges/compare page over the hand-checked stored case. */
describeDb('judge compare over HTTP', (ctx) => {
  const api = useApi(ctx);
  beforeAll(async () => {
    await seedJudgeCompare(ctx.database);
  });

  it('the route: the hand-checked figures in the documented schema, seeded and reproducible', async () => {
    const path = '/api/reports/judge-compare?run=jc&a=old&b=new&top=2&seed=5&resamples=300';
    const res = await api.call(api.keys.read, 'GET', path);
    expect(res.status).toBe(200);
    const body = JudgeCompareSchema.parse(await res.json());
    expect(body).toMatchObject({ run: 'jc', judgeA: 'old', judgeB: 'new', units: 6, answers: 3, bootstrap: { seed: 5, resamples: 300 } });
    expect(body.a.kappa.kappa).toBeCloseTo(5 / 9, 12);
    expect(body.b.weightedKappa.kappa).toBeCloseTo(5 / 6, 12);
    expect(body.difference.kappa.estimate).toBeCloseTo(46 / 225, 12);
    expect(body.flips).toMatchObject({ flips: 3, towardHuman: 2, awayFromHuman: 1, neither: 0 });
    expect(body.f1Moves.top.map((m) => [m.answer, m.delta])).toEqual([['x6', 0.9 - 0.1], ['x1', 0.25]]);
    expect(await (await api.call(api.keys.read, 'GET', path)).json()).toEqual(body);
  });

  it('the route refuses: missing b (400), a judge without grades (400, naming assay run), unknown run (404), no key (401)', async () => {
    const error = async (path: string, status: number, key: string | null = api.keys.read) => {
      const res = await api.call(key, 'GET', path);
      expect(res.status, path).toBe(status);
      return ((await res.json()) as { error: { code: string; message: string } }).error;
    };
    expect((await error('/api/reports/judge-compare?run=jc&a=old', 400)).code).toBe('bad_input');
    expect(await error('/api/reports/judge-compare?run=jc&a=old&b=idle', 400)).toEqual({
      code: 'bad_input',
      message: "judge 'idle' has no grades for run 'jc'; grade it first: assay run --run jc --judge idle",
    });
    expect((await error('/api/reports/judge-compare?run=nope&a=old&b=new', 404)).code).toBe('not_found');
    expect((await error('/api/reports/judge-compare?run=jc&a=old&b=new&resamples=0', 400)).code).toBe('bad_input');
    await error('/api/reports/judge-compare?run=jc&a=old&b=new', 401, null);
  });

  it('the page shows the same figures, and explains a refusal in place', async () => {
    const page = async (path: string) => {
      const res = await api.call(api.keys.read, 'GET', path, { headers: { accept: 'text/html' } });
      return { status: res.status, html: await res.text() };
    };
    const ok = await page('/judges/compare?run=jc&a=old&b=new');
    expect(ok.status).toBe(200);
    for (const needle of ['Compare judges: old → new', '6 units', '3 of', 'the human labels tie (no majority)', '0.556', '0.760', '0.204', 'correct→missing 1, incorrect→missing 1', 'x6']) {
      expect(ok.html, needle).toContain(needle);
    }
    const csv = await api.call(api.keys.read, 'GET', '/judges/compare?run=jc&a=old&b=new&table=flips&format=csv');
    expect(csv.status).toBe(200);
    // A row is one (rubric, item): rubrics share item ids, so the download names the rubric too.
    expect((await csv.text()).split('\r\n')[0]).toBe('rubric,item,units,flips,towardHuman,awayFromHuman,neither,transitions');
    const refused = await page('/judges/compare?run=jc&a=old&b=idle');
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('grade it first: assay run --run jc --judge idle');
    const blank = await page('/judges/compare');
    expect(blank.status).toBe(200);
    expect(blank.html).toContain('Name a run and two judges');
  });
});
