import { beforeAll, expect, it } from 'vitest';
import { loadRunCalibration } from '../../src/services/grading/calibration-labels.ts';
import { calibrationReport } from '../../src/services/report-analysis.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from '../api/app-fixture.ts';
import { addGradedErrorAnswer, ONE_ERROR_ANSWER_NOTE, seedPolicyCalibration } from './calibration-policy-fixture.ts';

/**
 * Calibration compared a judge's grade of an error answer (status error: the model call failed; graded before
 * 6bf3f2c, or imported) with a person's label of its leftover text. Neither is of a model's answer, so both
 * are left out and the notes count the answer. The case: calibration-policy-fixture.ts (hand-computed, under
 * count: cnt n 3, bias 1/54, MAE 5/54) and n5, status error, graded by cnt F1 0.1 (under count, no claims)
 * and rated 1 by h1. Read, n5 made cnt's n 4 and MAE (1/6 + 0 + 1/9 + 0.9)/4 = 53/180.
 */
const NOTE = ONE_ERROR_ANSWER_NOTE;

describeDb('calibration leaves error answers out', (ctx) => {
  beforeAll(async () => {
    const d = ctx.database;
    await seedPolicyCalibration(d);
    await addGradedErrorAnswer(d);
    // Panel pan (cnt + exc): on n1 both vote barn correct; on n5 they split (correct, incorrect).
    await d.execute(`insert into judges (slug, provider, model, config, config_hash) values ('pan', 'panel', 'cnt+exc', '{}', 'pan')`);
    const panel = (answer: string, votes: Record<string, number>) =>
      d.execute(
        `insert into grades (answer_id, judge_id, rubric_version_id, status, items, meta)
         select a.id, (select id from judges where slug = 'pan'), (select id from rubric_versions limit 1), 'ok', '[{"id":"barn","verdict":"correct"}]', $2::jsonb
           from answers a join runs r on r.id = a.run_id where r.name = 'pol' and a.external_id = $1`,
        [answer, JSON.stringify({ panel: { items: [{ id: 'barn', verdict: 'correct', votes: { correct: 0, partial: 0, incorrect: 0, missing: 0, ...votes } }] } })],
      );
    await panel('n1', { correct: 2 });
    await panel('n5', { correct: 1, incorrect: 1 });
  });

  it("a panel's item instability is over its grades of answers, not of n5: barn 0 of 2 samples (read: 1 of 4)", async () => {
    const c = await loadRunCalibration(ctx.database, { run: 'pol', judge: 'pan' });
    expect(c.panelInstability?.find((i) => i.id === 'barn')).toEqual({ id: 'barn', instability: 0, samples: 2, answers: 1 });
  });

  it("the stored calibration report: cnt's figures are the fixture's, n5 in none", async () => {
    const r = await calibrationReport(ctx.database, { run: 'pol', scale: 'numeric' });
    const cnt = r.judgeReports.find((j) => j.rater === 'cnt')!;
    expect(cnt.vsMajority.n).toBe(3);
    expect(cnt.vsMajority.bias).toBeCloseTo(1 / 54, 12);
    expect(cnt.vsMajority.mae).toBeCloseTo(5 / 54, 12);
  });

  it('assay calibrate --run: no row of n5, and the notes count it', async () => {
    const c = await loadRunCalibration(ctx.database, { run: 'pol', judge: 'cnt', scale: 'numeric' });
    expect(c.rows.filter((r) => r.answer === 'n5')).toEqual([]);
    expect(c.rows.filter((r) => r.kind === 'human').map((r) => r.answer)).toEqual(['n1', 'n2', 'n3', 'n4']);
    expect(c.notes).toContain(NOTE);
  });

  const api = useApi(ctx);
  // The stored report's notes say the left-out error answer too (report-analysis.ts, 1a7393a).
  it('GET /api/reports/calibration?run&judge: n 3, MAE 5/54', async () => {
    const res = await api.call(api.keys.read, 'GET', '/api/reports/calibration?run=pol&scale=numeric&judge=cnt');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { notes: string[]; judgeReports: Array<{ rater: string; vsMajority: { n: number; mae: number } }> };
    expect(body.judgeReports[0]!.vsMajority.n).toBe(3);
    expect(body.judgeReports[0]!.vsMajority.mae).toBeCloseTo(5 / 54, 12);
    expect(body.notes).toContain(NOTE);
  });
});
