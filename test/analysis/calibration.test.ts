import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../../src/analysis/calibration/index.ts';
import { formatCalibration } from '../../src/cli/format/calibration.ts';
import { parseLabels, type LabelRow } from '../../src/domain/labels.ts';
import { FIXTURES } from '../helpers/cli.ts';

/**
 * test/fixtures/calibration-small.jsonl: hand-made (written for assay), 8 answers (a1–a4 by model vlm-a,
 * a5–a8 by vlm-b) × 5 rubric items = 40 units, labelled by humans h1, h2 and judge j1. Per item, the
 * labels over a1..a8 (C correct, P partial, I incorrect, M missing):
 *
 *        h1        h2        j1
 *   i1   CCCCCCPI  CCCCCCPI  CCCCCCPI
 *   i2   CPPCICPM  CPCCICPM  CCPCPCCM
 *   i3   MMICMPCM  MIICMPCM  IMICMCCM
 *   i4   CCPPCICC  CCPPCICP  CCPCCICC
 *   i5   ICMCPCMC  ICMCPCMC  ICMCPCIC
 *
 * Every expected number below was worked out by hand from this table (counts and fractions shown) and
 * re-checked with an independent Python script using exact fractions (kappa SEs: Fleiss, Cohen & Everitt
 * 1969, the formula of stats/kappa; correlations: scipy.stats).
 */
const rows = parseLabels(readFileSync(`${FIXTURES}calibration-small.jsonl`, 'utf8'), 'calibration-small.jsonl', 'verdict');
const report = calibrate(rows, { scale: 'verdict', seed: 7 });
const j1 = report.judgeReports[0]!;

describe('calibrate — the hand-computed 40-unit fixture', () => {
  it('counts units, raters and majority ties', () => {
    expect(rows).toHaveLength(120);
    expect(report).toMatchObject({ scale: 'verdict', units: 40, answers: 8, items: 5, models: ['vlm-a', 'vlm-b'], humans: ['h1', 'h2'], judges: ['j1'] });
    // h1 and h2 differ on exactly three units (a2 i3 M/I, a3 i2 P/C, a8 i4 C/P): with two humans a
    // difference is a tie, so 37 units have a majority.
    expect(report.majority.units).toBe(37);
    expect(report.majority.ties).toBe(3);
    expect(report.majority.tied).toEqual([
      { answer: 'a2', item: 'i3' },
      { answer: 'a3', item: 'i2' },
      { answer: 'a8', item: 'i4' },
    ]);
    expect(report.notes.join(' ')).toContain('3 unit(s) have no human majority');
  });

  it('judge vs human majority: agreement, confusion, kappa, weighted kappa', () => {
    const m = j1.vsMajority;
    expect(m.n).toBe(37);
    // Disagreements vs majority: i2 a2 C/P, a5 P/I, a7 C/P; i3 a1 I/M, a6 C/P; i4 a4 C/P; i5 a7 I/M → 7.
    expect(m.agreement).toBeCloseTo(30 / 37, 12);
    // Rows judge, columns majority, order correct, partial, incorrect, missing.
    expect(m.confusion).toEqual({
      categories: ['correct', 'partial', 'incorrect', 'missing'],
      matrix: [
        [19, 4, 0, 0],
        [0, 3, 1, 0],
        [0, 0, 4, 2],
        [0, 0, 0, 4],
      ],
    });
    // Row sums 23, 4, 6, 4; column sums 19, 7, 5, 6. po = 30/37,
    // pe = (23·19 + 4·7 + 6·5 + 4·6)/37² = 519/1369, kappa = (1110 − 519)/(1369 − 519) = 591/850.
    expect(m.kappa!.kappa).toBeCloseTo(591 / 850, 12);
    expect(m.kappa!.se).toBeCloseTo(0.097488, 5);
    expect(m.kappa!.ci![0]).toBeCloseTo(0.504221, 5);
    expect(m.kappa!.ci![1]).toBeCloseTo(0.886367, 5);
    // Points table (levels 0, 0.5, 1; incorrect and missing merged): judge rows 10, 4, 23, majority
    // columns 11, 7, 19; diagonal 10 + 3 + 19, adjacent cells 1 + 4 with weight ½:
    // po = 34.5/37 = 69/74, pe = (575 + ½·351)/1369 = 1501/2738, kappa_w = 1052/1237.
    expect(m.weightedKappa!.kappa).toBeCloseTo(1052 / 1237, 12);
    expect(m.weightedKappa!.ci![0]).toBeCloseTo(0.725126, 5);
    expect(m.weightedKappa!.ci![1]).toBeCloseTo(0.975764, 5);
    // Judge earns 2.5 more points over 37 units: 4 × (C for P) ½ + 1 × (P for I) ½.
    expect(m.bias).toBeCloseTo(2.5 / 37, 12);
    expect(m.mae).toBeCloseTo(2.5 / 37, 12);
  });

  it('judge vs each human', () => {
    const { h1, h2 } = j1.vsHumans;
    // vs h1: 7 differences over 40 (the 7 above, none at the ties) → 33/40; kappa 21/29, kappa_w 157/182.
    expect(h1!.n).toBe(40);
    expect(h1!.agreement).toBeCloseTo(33 / 40, 12);
    expect(h1!.kappa!.kappa).toBeCloseTo(21 / 29, 12);
    expect(h1!.weightedKappa!.kappa).toBeCloseTo(157 / 182, 12);
    expect(h1!.confusion!.matrix).toEqual([
      [20, 4, 0, 0],
      [0, 4, 1, 0],
      [0, 0, 4, 2],
      [0, 0, 0, 5],
    ]);
    // vs h2: 10 differences → 3/4; kappa 307/507, kappa_w 21/26.
    expect(h2!.agreement).toBeCloseTo(3 / 4, 12);
    expect(h2!.kappa!.kappa).toBeCloseTo(307 / 507, 12);
    expect(h2!.weightedKappa!.kappa).toBeCloseTo(21 / 26, 12);
  });

  it('per graded model', () => {
    // vlm-a: answers a1–a4, 20 units − 2 ties = 18, 3 disagreements → 15/18; kappa 58/85.
    expect(j1.byModel['vlm-a']!.vsMajority.n).toBe(18);
    expect(j1.byModel['vlm-a']!.vsMajority.agreement).toBeCloseTo(15 / 18, 12);
    expect(j1.byModel['vlm-a']!.vsMajority.kappa!.kappa).toBeCloseTo(58 / 85, 12);
    // vlm-b: 20 − 1 tie = 19 units, 4 disagreements → 15/19; kappa 43/62.
    expect(j1.byModel['vlm-b']!.vsMajority.n).toBe(19);
    expect(j1.byModel['vlm-b']!.vsMajority.agreement).toBeCloseTo(15 / 19, 12);
    expect(j1.byModel['vlm-b']!.vsMajority.kappa!.kappa).toBeCloseTo(43 / 62, 12);
    expect(Object.keys(j1.byModel['vlm-a']!.vsHumans)).toEqual(['h1', 'h2']);
  });

  it('ranks rubric items by disagreement with the majority', () => {
    // i2: 3 of 7 (a3 tied), i3: 2 of 7 (a2 tied), i4: 1 of 7 (a8 tied), i5: 1 of 8, i1: 0 of 8.
    expect(j1.byItem.map((i) => [i.item, i.n, i.disagreements])).toEqual([
      ['i2', 7, 3],
      ['i3', 7, 2],
      ['i4', 7, 1],
      ['i5', 8, 1],
      ['i1', 8, 0],
    ]);
    expect(j1.byItem[0]!.disagreement).toBeCloseTo(3 / 7, 12);
    // i2: judge C on a2 and a7 where the humans agree on P.
    expect(j1.byItem[0]!.topConfusion).toEqual({ judge: 'correct', majority: 'partial', count: 2 });
    expect(j1.byItem[4]!.topConfusion).toBeNull();
    // i2 kappa: judge C5 P1 M1, majority C3 P2 I1 M1, po = 4/7, pe = (15 + 2 + 1)/49 → 10/31.
    expect(j1.byItem[0]!.vsMajority.kappa!.kappa).toBeCloseTo(10 / 31, 12);
    expect(j1.byItem[4]!.vsMajority.kappa!.kappa).toBeCloseTo(1, 12);
  });

  it('rolls item labels up to answer scores', () => {
    const a = j1.answers;
    expect(a.n).toBe(8);
    expect(a.weighted).toBe(false);
    // Mean points over each answer's items with a majority, e.g. a2 (i3 tied): judge C C · C C → 1,
    // humans C P · C C → 3.5/4 = 7/8.
    expect(a.answers.map((x) => [x.answer, x.judge, x.human])).toEqual([
      ['a1', 3 / 5, 3 / 5],
      ['a2', 1, 7 / 8],
      ['a3', 3 / 8, 3 / 8],
      ['a4', 1, 9 / 10],
      ['a5', 3 / 5, 1 / 2],
      ['a6', 4 / 5, 7 / 10],
      ['a7', 7 / 10, 3 / 5],
      ['a8', 1 / 4, 1 / 4],
    ].map(([k, j, h]) => [k, expect.closeTo(j as number, 12), expect.closeTo(h as number, 12)]));
    // Differences 0, 1/8, 0, 1/10, 1/10, 1/10, 1/10, 0 → bias = MAE = 21/40 / 8 = 21/320.
    expect(a.bias).toBeCloseTo(21 / 320, 12);
    expect(a.mae).toBeCloseTo(21 / 320, 12);
    // scipy.stats.pearsonr / spearmanr on the two columns.
    expect(a.pearson.r).toBeCloseTo(0.9904986051962261, 10);
    expect(a.spearman.r).toBeCloseTo(0.9757754965005869, 10);
  });

  it('weights items in the roll-up when given', () => {
    const w = calibrate(rows, { scale: 'verdict', weights: { i1: 1, i2: 3, i3: 1, i4: 1, i5: 1 } });
    const a2 = w.judgeReports[0]!.answers.answers.find((x) => x.answer === 'a2')!;
    // a2 over i1, i2, i4, i5: judge 1·1 + 3·1 + 1 + 1 = 6/6; humans 1 + 3·0.5 + 1 + 1 = 4.5/6.
    expect(a2.judge).toBeCloseTo(1, 12);
    expect(a2.human).toBeCloseTo(0.75, 12);
    expect(w.judgeReports[0]!.answers.weighted).toBe(true);
  });

  it('reports the human–human ceiling', () => {
    // Ordinal alpha on points. Coincidences over the 40 units (each pair counted both ways):
    // o(0,0) = 24, o(½,½) = 14, o(1,1) = 38, o(½,1) = o(1,½) = 2 (the a3 i2 P/C and a8 i4 C/P ties; the
    // a2 i3 M/I tie is 0 = 0 on points). Marginals n0 = 24, n½ = 16, n1 = 40, n = 80. Ordinal
    // δ²(c,k) = (Σ_{g=c..k} n_g − (n_c + n_k)/2)²: δ²(0,½) = 20² = 400, δ²(½,1) = 28² = 784, δ²(0,1) = 48² = 2304.
    // Σ o·δ² = 4·784 = 3136; Σ n_c·n_k·δ² = 2·(24·16·400 + 16·40·784 + 24·40·2304) = 5 734 400;
    // alpha = 1 − (n − 1)·3136/5 734 400 = 1 − 79·3136/5 734 400 = 12247/12800 ≈ 0.9568.
    expect(report.humanCeiling.alpha.alpha).toBeCloseTo(12247 / 12800, 12);
    expect(report.humanCeiling.alpha.level).toBe('ordinal');
    expect(report.humanCeiling.alpha.units).toBe(40);
    const ci = report.humanCeiling.alpha.ci!;
    expect(ci[0]).toBeLessThanOrEqual(12247 / 12800);
    expect(ci[1]).toBeGreaterThanOrEqual(12247 / 12800);
    // h1 ~ h2: 37/40 agree; kappa 118/133; weighted 87/92.
    const hh = report.humanCeiling.pairs['h1 ~ h2']!;
    expect(hh.agreement).toBeCloseTo(37 / 40, 12);
    expect(hh.kappa!.kappa).toBeCloseTo(118 / 133, 12);
    expect(hh.weightedKappa!.kappa).toBeCloseTo(87 / 92, 12);
    expect(report.judgeJudge).toBeNull();
  });

  it('reads the judge against the human ceiling', () => {
    // Weighted kappa vs majority [0.725, 0.976] overlaps alpha's bootstrap interval (which contains 0.957).
    expect(j1.trust).toMatchObject({ statistic: 'weightedKappa', value: 1052 / 1237, ceiling: 12247 / 12800, withinHumanRange: true });
    // Two annotators: each against the other, weighted kappa 87/92 both ways; the human level is that.
    expect(j1.trust.humans.map((h) => [h.annotator, h.n])).toEqual([['h1', 40], ['h2', 40]]);
    expect(j1.trust.humanLevel).toBeCloseTo(87 / 92, 12);
  });

  it('the bootstrap interval of alpha is fixed by the seed', () => {
    const again = calibrate(rows, { scale: 'verdict', seed: 7 });
    expect(again.humanCeiling.alpha.ci).toEqual(report.humanCeiling.alpha.ci);
    const other = calibrate(rows, { scale: 'verdict', seed: 8 });
    expect(other.humanCeiling.alpha.alpha).toBe(report.humanCeiling.alpha.alpha);
  });

  it('renders a readable report', () => {
    const text = formatCalibration(report);
    expect(text).toContain('37 units with a majority, 3 ties (excluded)');
    expect(text).toMatch(/majority\s+37\s+0\.811\s+0\.695\s+\[0\.504, 0\.886\]\s+0\.850\s+\[0\.725, 0\.976\]/);
    expect(text).toMatch(/i2\s+7\s+3\s+0\.429\s+0\.323\s+correct → partial ×2/);
    expect(text).toContain(
      'Reading: weighted kappa vs majority 0.850 [0.725, 0.976] reaches the human level 0.946 (median of 2 annotators, each against the majority of the others)',
    );
  });
});

describe('calibrate — several judges, --judge', () => {
  // j2 copies j1 on answers a1–a4 only: 20 shared units, all equal.
  const j2: LabelRow[] = rows.filter((r) => r.rater === 'j1' && ['a1', 'a2', 'a3', 'a4'].includes(r.answer)).map((r) => ({ ...r, rater: 'j2' }));
  const both = calibrate([...rows, ...j2], { scale: 'verdict' });

  it('reports judge–judge agreement over the shared units', () => {
    expect(both.judges).toEqual(['j1', 'j2']);
    const p = both.judgeJudge!.pairs['j1 ~ j2']!;
    expect(p.n).toBe(20);
    expect(p.agreement).toBe(1);
    expect(p.kappa!.kappa).toBeCloseTo(1, 12);
    expect(both.judgeJudge!.alpha.alpha).toBeCloseTo(1, 12);
    expect(both.judgeJudge!.alpha.units).toBe(20);
  });

  it('--judge picks one judge', () => {
    const one = calibrate([...rows, ...j2], { scale: 'verdict', judge: 'j2' });
    expect(one.judgeReports.map((j) => j.rater)).toEqual(['j2']);
    expect(one.judgeReports[0]!.units).toBe(20);
  });
});
