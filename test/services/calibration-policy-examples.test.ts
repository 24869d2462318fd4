import { beforeAll, expect, it } from 'vitest';
import { calibrationReport } from '../../src/services/report-analysis.ts';
import { loadRunCalibration } from '../../src/services/grading/calibration-labels.ts';
import { describeDb } from '../helpers/db.ts';
import { seedPolicyCalibration } from './calibration-policy-fixture.ts';

/**
 * The policy note counts grades the policy leaves out of the report: a grade of an answer its judge was
 * shown as an example is out of that judge's figures anyway (example-exclusion.ts), whatever the policy,
 * so it is no grade the policy left out. The case (calibration-policy-fixture.ts): exc's n4 is a panel
 * grade of exclude (no claims), so under count the policy cannot read it; here exc was also shown n4 as
 * an example. Under count exc's figures are n1–n3 (3 units, MAE 5/54) with or without the example; the
 * note counted n4 ("1 grade left out") though no reading of n4 could be in the report.
 */
describeDb('calibration policy note: an anchored judge\'s example answers are not counted as left out by the policy', (ctx) => {
  beforeAll(async () => {
    await seedPolicyCalibration(ctx.database);
    await ctx.database.execute(`update judges set config = $1::jsonb where slug = 'exc'`, [JSON.stringify({ id: 'exc', resolvedExamples: [{ answerId: 0, run: 'pol', answer: 'n4', verdicts: [] }] })]);
  });
  const judge = (r: Awaited<ReturnType<typeof calibrationReport>>, slug: string) => r.judgeReports.find((j) => j.rater === slug)!;

  it('GET /api/reports/calibration (and the page): under count no grade is said left out; exc still reads 3 answers', async () => {
    const r = await calibrationReport(ctx.database, { run: 'pol', scale: 'numeric' });
    expect(r.excludedExamples).toEqual({ exc: 1 });
    expect(judge(r, 'exc').vsMajority.n).toBe(3);
    expect(judge(r, 'exc').vsMajority.mae).toBeCloseTo(5 / 54, 12);
    expect([r.unverifiable, r.unverifiableNote]).toEqual(['count', null]);
    expect(r.notes.filter((n) => /left out: computed with/.test(n))).toEqual([]);
    // Under exclude n4 is readable but still an example: exc's figures are n1–n3 read under exclude,
    // |1 − 0.5| + |4/7 − 0.5| + |8/9 − 1| over 3 = (1/2 + 1/14 + 1/9)/3 = 43/189.
    const x = await calibrationReport(ctx.database, { run: 'pol', scale: 'numeric', unverifiable: 'exclude' });
    expect(judge(x, 'exc').vsMajority.n).toBe(3);
    expect(judge(x, 'exc').vsMajority.mae).toBeCloseTo(43 / 189, 12);
    expect(x.unverifiableNote).toBeNull();
  });

  it('assay calibrate --run: the same', async () => {
    const c = await loadRunCalibration(ctx.database, { run: 'pol', judge: 'exc', scale: 'numeric' });
    expect(c.excludedExamples).toBe(1);
    expect(c.policy).toEqual({ unverifiable: 'count', unverifiableNote: null });
    expect(c.rows.filter((r) => r.kind === 'judge').map((r) => r.answer).sort()).toEqual(['n1', 'n2', 'n3']);
  });

  it('a judge that was not shown the answer: its grade is still counted (cnt has none; the note counts exc only when n4 is not its example)', async () => {
    await ctx.database.execute(`update judges set config = $1::jsonb where slug = 'exc'`, [JSON.stringify({ id: 'exc', resolvedExamples: [{ answerId: 0, run: 'pol', answer: 'n1', verdicts: [] }] })]);
    const r = await calibrationReport(ctx.database, { run: 'pol', scale: 'numeric' });
    expect(r.excludedExamples).toEqual({ exc: 1 });
    expect(judge(r, 'exc').vsMajority.n).toBe(2);
    expect(r.unverifiableNote).toMatch(/^1 grade left out: /);
  });
});
