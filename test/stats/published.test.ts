import { describe, expect, it } from 'vitest';
import { kendall, pearson, spearman } from '../../src/stats/correlation.ts';
import { fleissKappa } from '../../src/stats/fleiss.ts';
import { icc } from '../../src/stats/icc.ts';
import { cohenKappa, gwetAC, scottPi } from '../../src/stats/kappa.ts';
import { mcnemar } from '../../src/stats/mcnemar.ts';

/** Published values beyond the shared reference file; each cites where the number is printed. */

/** Label pairs from a contingency table (rows = rater a). */
function expand(table: number[][]): [number[], number[]] {
  const a: number[] = [];
  const b: number[] = [];
  table.forEach((row, i) => row.forEach((count, j) => {
    for (let t = 0; t < count; t++) {
      a.push(i);
      b.push(j);
    }
  }));
  return [a, b];
}

/** |actual − expected| within half a unit of the last printed digit. */
function printed(actual: number | null | undefined, expected: number, decimals: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected), `${actual} vs printed ${expected}`).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-12);
}

describe("Cohen's kappa standard error (SAS PROC FREQ ASE, as stored in statsmodels test_inter_rater.py)", () => {
  const [a, b] = expand([[0, 4, 1], [0, 8, 0], [0, 1, 5]]);

  it('simple kappa 0.4842, ASE 0.1380, 95% CI 0.2137–0.7547', () => {
    const r = cohenKappa(a, b);
    printed(r.kappa, 0.4842, 4);
    printed(r.se, 0.138, 4);
    printed(r.ci![0], 0.2137, 4);
    printed(r.ci![1], 0.7547, 4);
  });

  it('weighted kappa (Cicchetti–Allison = linear) 0.4701, ASE 0.1457, 95% CI 0.1845–0.7558', () => {
    const r = cohenKappa(a, b, { weights: 'linear' });
    printed(r.kappa, 0.4701, 4);
    printed(r.se, 0.1457, 4);
    printed(r.ci![0], 0.1845, 4);
    printed(r.ci![1], 0.7558, 4);
  });
});

describe('irrCAC README, cont3x3abstractors (Gwet 2014)', () => {
  const [a, b] = expand([[13, 0, 0], [0, 20, 7], [0, 4, 56]]);
  it("Cohen's kappa 0.7964094 (se 0.05891072)", () => {
    const r = cohenKappa(a, b);
    printed(r.kappa, 0.7964094, 7);
    printed(r.se, 0.05891072, 8);
  });
  it("Scott's pi 0.7962397 (se 0.05905473)", () => {
    const r = scottPi(a, b);
    printed(r.kappa, 0.7962397, 7);
    printed(r.se, 0.05905473, 8);
  });
  it("Gwet's AC1 0.8493305 (se 0.04321747); the interval is ±z·se (irrCAC's (0.764, 0.935) uses t with n − 1 df)", () => {
    const r = gwetAC(a, b);
    printed(r.kappa, 0.8493305, 7);
    printed(r.se, 0.04321747, 8);
    expect(r.ci![0]).toBeCloseTo(r.kappa! - 1.959963984540054 * r.se!, 12);
    expect(r.ci![1]).toBeCloseTo(r.kappa! + 1.959963984540054 * r.se!, 12);
  });
});

describe('R irr::kappa2 on anxiety[, 2:3] (values stored in statsmodels test_cohens_kappa_irr)', () => {
  const rater2 = [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4];
  const rater3 = [2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2];
  it('unweighted −0.006289308, equal (linear) 0.1459075, squared (quadratic) 0.2520325 over the observed levels 1,2,3,4,6', () => {
    printed(cohenKappa(rater2, rater3).kappa, -0.006289308, 9);
    printed(cohenKappa(rater2, rater3, { weights: 'linear' }).kappa, 0.1459075, 7);
    printed(cohenKappa(rater2, rater3, { weights: 'quadratic' }).kappa, 0.2520325, 7);
    expect(cohenKappa(rater2, rater3).categories).toEqual([1, 2, 3, 4, 6]);
  });
});

describe("Fleiss' kappa, Wikipedia example (statsmodels test_fleiss_kappa: 0.210)", () => {
  it('10 subjects × 14 raters × 5 categories', () => {
    const table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]];
    const r = fleissKappa(table);
    printed(r.kappa, 0.21, 3);
    expect(r.raters).toBe(14);
    expect(r.subjects).toBe(10);
  });
});

describe('ICC: Shrout & Fleiss (1979) Table 2 data; R psych::ICC and DescTools::ICC printouts', () => {
  const sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]];
  const r = icc(sf);
  it('Shrout & Fleiss: ICC(1,1)=.17 ICC(2,1)=.29 ICC(3,1)=.71 ICC(1,4)=.44 ICC(2,4)=.62 ICC(3,4)=.91', () => {
    printed(r.ICC1.value, 0.17, 2);
    printed(r.ICC2.value, 0.29, 2);
    printed(r.ICC3.value, 0.71, 2);
    printed(r.ICC1k.value, 0.44, 2);
    printed(r.ICC2k.value, 0.62, 2);
    printed(r.ICC3k.value, 0.91, 2);
  });
  it('DescTools: estimates .166 .290 .715 .443 .620 .909, F 1.79 (5, 18) p .164769 and F 11.03 (5, 15) p .000135', () => {
    printed(r.ICC1.value, 0.166, 3);
    printed(r.ICC2.value, 0.29, 3);
    printed(r.ICC3.value, 0.715, 3);
    printed(r.ICC1k.value, 0.443, 3);
    printed(r.ICC2k.value, 0.62, 3);
    printed(r.ICC3k.value, 0.909, 3);
    printed(r.ICC1.F, 1.79, 2);
    printed(r.ICC3.F, 11.03, 2);
    expect([r.ICC1.df1, r.ICC1.df2, r.ICC3.df1, r.ICC3.df2]).toEqual([5, 18, 5, 15]);
    printed(r.ICC1.p, 0.164769, 6);
    printed(r.ICC3.p, 0.000135, 6);
  });
  it('psych: 95% bounds −.133/.72, .019/.76, .342/.95, −.884/.91, .071/.93, .676/.99', () => {
    const expected: [keyof typeof r & string, number, number, number][] = [
      ['ICC1', -0.133, 0.72, 2],
      ['ICC2', 0.019, 0.76, 2],
      ['ICC3', 0.342, 0.95, 2],
      ['ICC1k', -0.884, 0.91, 2],
      ['ICC2k', 0.071, 0.93, 2],
      ['ICC3k', 0.676, 0.99, 2],
    ];
    for (const [form, lo, hi, upperDecimals] of expected) {
      const ci = (r as any)[form].ci as [number, number];
      printed(ci[0], lo, 3);
      printed(ci[1], hi, upperDecimals);
    }
  });
});

describe("McNemar: R mcnemar.test, Agresti (1990) presidential approval (794, 150 / 86, 570)", () => {
  it("continuity corrected: McNemar's chi-squared = 16.818, p = 4.115e-05 (4.114562e-05)", () => {
    const r = mcnemar(150, 86);
    printed(r.statistic, 16.818, 3);
    expect(r.p).toBeCloseTo(4.114562e-5, 10);
  });
  it('correct = FALSE: 17.356, p = 3.099e-05 (3.099293e-05)', () => {
    const r = mcnemar(150, 86, { correction: false });
    printed(r.statistic, 17.356, 3);
    expect(r.p).toBeCloseTo(3.099293e-5, 10);
  });
  it('exact: min(b, c) and the two-sided binomial tail, hand-checked on b = 1, c = 5: 2·(1 + 6)/64', () => {
    const r = mcnemar(1, 5, { exact: true });
    expect(r.statistic).toBe(1);
    expect(r.p).toBeCloseTo(14 / 64, 14);
    expect(mcnemar(3, 3, { exact: true }).p).toBe(1);
    expect(mcnemar(0, 0, { exact: true }).p).toBe(1);
  });
});

describe('correlations: R cor.test (Hollander & Wolfe 1973) and scipy docstrings', () => {
  const x = [44.4, 45.9, 41.9, 53.3, 44.7, 44.1, 50.7, 45.2, 60.1];
  const y = [2.6, 3.1, 2.5, 5.0, 3.6, 4.0, 5.2, 2.8, 3.8];
  it('Pearson: cor 0.5711816, t = 1.8411 on 7 df, p = 0.1082, 95% CI −0.1497426 to 0.8955795', () => {
    const r = pearson(x, y);
    printed(r.r, 0.5711816, 7);
    printed(r.p, 0.1082, 4);
    printed(r.ci![0], -0.1497426, 7);
    printed(r.ci![1], 0.8955795, 7);
  });
  it('scipy spearmanr([1..5], [5,6,7,8,7]) = (0.82078268166812329, 0.088587005313543798)', () => {
    const r = spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]);
    expect(r.r).toBeCloseTo(0.8207826816681233, 14);
    expect(r.p).toBeCloseTo(0.0885870053135438, 12);
  });
  it('scipy kendalltau([12,2,1,12,2], [1,4,7,1,0]) = (−0.47140452079103173, 0.2827454599327748)', () => {
    const r = kendall([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]);
    expect(r.r).toBeCloseTo(-0.47140452079103173, 14);
    expect(r.p).toBeCloseTo(0.2827454599327748, 12);
  });
});
