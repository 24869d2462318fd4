import { describe, expect, it } from 'vitest';
import { calibrate } from '../../src/analysis/calibration/index.ts';
import { leaveOneAnnotatorOut } from '../../src/analysis/calibration/ceiling.ts';
import { buildLabelTable } from '../../src/analysis/calibration/table.ts';
import { median } from '../../src/analysis/calibration/trust.ts';
import type { LabelRow } from '../../src/domain/labels.ts';

/**
 * "Within human range" is read against the leave-one-annotator-out distribution (each annotator against
 * the majority of the others), at its median. Hand-built binary set of 100 answers: the truth is true on
 * a1–a50 and false on a51–a100; h1, h2 and h3 give the truth; h4 is careless, agreeing with it on 49 of
 * 100 (true on a1–a24 and on a51–a75, false elsewhere: 24 + 25 agreements); the judge agrees on 64
 * (true on a1–a32 and a51–a68: 32 + 32).
 */

const N = 100;
const truth = (i: number) => i <= 50;
const h4 = (i: number) => i <= 24 || (i >= 51 && i <= 75);
const judge = (i: number) => i <= 32 || (i >= 51 && i <= 68);
const ids = Array.from({ length: N }, (_, k) => k + 1);
const row = (i: number, rater: string, kind: 'human' | 'judge', label: boolean): LabelRow => ({ answer: `a${i}`, rater, kind, label });
const rows: LabelRow[] = ids.flatMap((i) => [
  row(i, 'h1', 'human', truth(i)),
  row(i, 'h2', 'human', truth(i)),
  row(i, 'h3', 'human', truth(i)),
  row(i, 'h4', 'human', h4(i)),
  row(i, 'j', 'judge', judge(i)),
]);

describe('within human range: leave one annotator out', () => {
  const report = calibrate(rows, { scale: 'binary', seed: 1 });
  const t = report.judgeReports[0]!.trust;

  it('each annotator against the majority of the others', () => {
    const loo = report.humanCeiling.leaveOneOut;
    // h1 against the majority of h2, h3, h4: h2 and h3 always outvote h4, so the reference is the truth.
    for (const h of ['h1', 'h2', 'h3']) {
      expect(loo[h]!.n).toBe(100);
      expect(loo[h]!.kappa!.kappa).toBeCloseTo(1, 12);
    }
    // h4 against the truth: agreement 49/100; the reference is half true, so pe = ½ and kappa = (0.49 − ½)/½ = −0.02.
    expect(loo.h4!.agreement).toBeCloseTo(0.49, 12);
    expect(loo.h4!.kappa!.kappa).toBeCloseTo(-0.02, 12);
    expect(t.humans.map((h) => [h.annotator, Number(h.value!.toFixed(6))])).toEqual([['h1', 1], ['h2', 1], ['h3', 1], ['h4', -0.02]]);
    expect(t.humanLevel).toBeCloseTo(1, 12);
  });

  it('the careless annotator would have made the old rule (interval overlaps alpha) say human-level; the median does not', () => {
    // Judge against the majority (the truth): 64/100 agree, pe = ½ → kappa 0.28.
    expect(t.statistic).toBe('kappa');
    expect(t.value).toBeCloseTo(0.28, 12);
    // Nominal alpha of the four: 51 units split 3–1 give 2 disagreeing pairable values each (102 in all);
    // n_true = 3·50 + 49 = 199, n_false = 201, n = 400: alpha = 1 − 399·102 / (2·199·201) = 1 − 40698/79998.
    expect(report.humanCeiling.alpha.alpha).toBeCloseTo(1 - 40698 / 79998, 12);
    // The old rule: within when the judge's interval reaches the bottom of alpha's interval.
    expect(t.ci![1]).toBeGreaterThanOrEqual(t.ceilingCi![0]);
    // The rule now: the judge's interval must reach the median annotator (1): it does not.
    expect(t.ci![1]).toBeLessThan(0.5);
    expect(t.withinHumanRange).toBe(false);
    expect(t.rule).toMatch(/median.*leave one annotator out/);
  });

  it('a judge that gives the truth is within human range despite the careless annotator', () => {
    const good = rows.map((r) => (r.kind === 'judge' ? { ...r, label: truth(Number(r.answer.slice(1))) } : r));
    expect(calibrate(good, { scale: 'binary' }).judgeReports[0]!.trust.withinHumanRange).toBe(true);
  });

  it('one annotator gives no distribution; two are each compared with the other', () => {
    const one = buildLabelTable(rows.filter((r) => r.rater === 'h1' || r.rater === 'j'), 'binary');
    expect(leaveOneAnnotatorOut(one)).toEqual({});
    const r1 = calibrate(rows.filter((r) => r.rater === 'h1' || r.rater === 'j'), { scale: 'binary' }).judgeReports[0]!.trust;
    expect(r1.withinHumanRange).toBeNull();
    expect(r1.reason).toMatch(/needs two annotators/);
    const two = leaveOneAnnotatorOut(buildLabelTable(rows.filter((r) => r.rater === 'h1' || r.rater === 'h4'), 'binary'));
    expect(two.h1!.kappa!.kappa).toBeCloseTo(-0.02, 12);
    expect(two.h4!.kappa!.kappa).toBeCloseTo(-0.02, 12);
  });

  it('median: odd and even counts, empty', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([1, -0.02, 1, 1])).toBe(1);
    expect(median([0.2, 0.8])).toBe(0.5);
    expect(median([])).toBeNull();
  });
});
