import { beforeAll, expect, it } from 'vitest';
import { calibrationReport, storedCalibration } from '../../src/services/report-analysis.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from '../api/app-fixture.ts';
import { addGradedErrorAnswer, ONE_ERROR_ANSWER_NOTE, seedPolicyCalibration } from './calibration-policy-fixture.ts';

/**
 * The stored calibration report (GET /api/reports/calibration, the /calibration page) leaves error answers
 * out (32bc9d6) and now says so, as `assay calibrate --run` does. The case of calibration-error-answers.test.ts:
 * calibration-policy-fixture.ts (under count cnt n 3, MAE 5/54, hand-computed) plus n5, status error,
 * graded by cnt (F1 0.1) and rated 1 by h1: 1 answer left out, and the figures stay the fixture's.
 */
const NOTE = ONE_ERROR_ANSWER_NOTE;

describeDb('stored calibration report: the notes count the error answers left out', (ctx) => {
  beforeAll(async () => {
    const d = ctx.database;
    await seedPolicyCalibration(d);
    await addGradedErrorAnswer(d);
  });

  it('the service behind both surfaces: the note, once; the figures without n5', async () => {
    const r = await calibrationReport(ctx.database, { run: 'pol', scale: 'numeric', judge: 'cnt' });
    expect(r.notes.filter((n) => n === NOTE)).toHaveLength(1);
    expect(r.judgeReports[0]!.vsMajority.n).toBe(3);
    expect(r.judgeReports[0]!.vsMajority.mae).toBeCloseTo(5 / 54, 12);
    // The page reads storedCalibration: the same notes.
    const page = await storedCalibration(ctx.database, { run: 'pol', scale: 'numeric' });
    expect(page.report!.notes).toContain(NOTE);
  });

  const api = useApi(ctx);
  it('GET /api/reports/calibration: the note in the body', async () => {
    const res = await api.call(api.keys.read, 'GET', '/api/reports/calibration?run=pol&scale=numeric&judge=cnt');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { notes: string[]; judgeReports: Array<{ vsMajority: { n: number } }> };
    expect(body.notes).toContain(NOTE);
    expect(body.judgeReports[0]!.vsMajority.n).toBe(3);
  });
});
