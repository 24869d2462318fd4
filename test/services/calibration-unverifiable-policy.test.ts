import { beforeAll, expect, it } from 'vitest';
import { calibrationReport } from '../../src/services/report-analysis.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from '../api/app-fixture.ts';
import { seedPolicyCalibration } from './calibration-policy-fixture.ts';

/** The numeric calibration under one unverifiable-claims policy; the case and its hand-computed figures: calibration-policy-fixture.ts. */
describeDb('calibration numeric scale under one unverifiable-claims policy', (ctx) => {
  beforeAll(() => seedPolicyCalibration(ctx.database));
  const judge = (r: Awaited<ReturnType<typeof calibrationReport>>, slug: string) => r.judgeReports.find((j) => j.rater === slug)!;

  it('reads every F1 under count by default: the exclude grades are rescored, the panel grade left out and counted', async () => {
    const r = await calibrationReport(ctx.database, { run: 'pol', scale: 'numeric' });
    expect(r.unverifiable).toBe('count');
    for (const slug of ['cnt', 'exc']) {
      expect(judge(r, slug).vsMajority.n, slug).toBe(3);
      expect(judge(r, slug).vsMajority.bias, slug).toBeCloseTo(1 / 54, 12);
      expect(judge(r, slug).vsMajority.mae, slug).toBeCloseTo(5 / 54, 12);
    }
    expect(r.judgeJudge!.pairs['cnt|exc'] ?? Object.values(r.judgeJudge!.pairs)[0]).toMatchObject({ n: 3, mae: 0 });
    expect(r.unverifiableNote).toBe('1 grade left out: computed with unverifiable claims excluded, and its stored claims cannot rescore it under count (a panel grade keeps none)');
    expect(r.notes).toContain(r.unverifiableNote);
  });

  it('reads them all under exclude when asked: the count grades are rescored, the panel grade counts', async () => {
    const r = await calibrationReport(ctx.database, { run: 'pol', scale: 'numeric', unverifiable: 'exclude' });
    expect(r.unverifiable).toBe('exclude');
    expect(r.unverifiableNote).toBeNull();
    expect(judge(r, 'cnt').vsMajority.mae).toBeCloseTo(43 / 189, 12);
    expect(judge(r, 'exc').vsMajority.n).toBe(4);
    expect(judge(r, 'exc').vsMajority.mae).toBeCloseTo((1 / 2 + 1 / 14 + 1 / 9 + 0) / 4, 12);
  });

  const api = useApi(ctx);
  it('GET /api/reports/calibration takes ?unverifiable= as the other F1 reports do (other values 400)', async () => {
    const res = await api.call(api.keys.read, 'GET', '/api/reports/calibration?run=pol&scale=numeric&judge=exc&unverifiable=exclude');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { unverifiable: string; unverifiableNote: string | null; judgeReports: Array<{ rater: string; vsMajority: { n: number; mae: number } }> };
    expect(body.unverifiable).toBe('exclude');
    expect(body.judgeReports[0]!.vsMajority.n).toBe(4);
    expect(body.judgeReports[0]!.vsMajority.mae).toBeCloseTo((1 / 2 + 1 / 14 + 1 / 9) / 4, 12);
    const byDefault = (await (await api.call(api.keys.read, 'GET', '/api/reports/calibration?run=pol&scale=numeric&judge=exc')).json()) as typeof body;
    expect(byDefault.unverifiable).toBe('count');
    expect(byDefault.judgeReports[0]!.vsMajority.mae).toBeCloseTo(5 / 54, 12);
    expect(byDefault.unverifiableNote).toMatch(/^1 grade left out/);
    expect((await api.call(api.keys.read, 'GET', '/api/reports/calibration?run=pol&scale=numeric&unverifiable=both')).status).toBe(400);
  });
});
