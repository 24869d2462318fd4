import { describe, expect, it } from 'vitest';
import { percentAgreement, confusionMatrix } from '../../src/stats/agreement.ts';
import { bootstrapCI } from '../../src/stats/bootstrap.ts';
import { kendall, pearson, spearman, averageRanks } from '../../src/stats/correlation.ts';
import { fleissKappa } from '../../src/stats/fleiss.ts';
import { icc } from '../../src/stats/icc.ts';
import { cohenKappa, gwetAC, scottPi } from '../../src/stats/kappa.ts';
import { krippendorffAlpha } from '../../src/stats/krippendorff.ts';
import { mcnemar } from '../../src/stats/mcnemar.ts';
import { wilson } from '../../src/stats/wilson.ts';

/** Undefined cases come back as null with a reason (never NaN, never a crash); malformed input throws bad_input. */

function noNaN(value: unknown): void {
  JSON.stringify(value, (_k, v) => {
    if (typeof v === 'number') expect(Number.isFinite(v), `non-finite number in ${JSON.stringify(value)}`).toBe(true);
    return v;
  });
}

const badInput = expect.objectContaining({ code: 'bad_input' });

describe('agreement and confusion matrix', () => {
  it('percent agreement and a hand-made confusion matrix (numbers sort numerically)', () => {
    expect(percentAgreement([1, 2, 3, 10], [1, 2, 10, 10])).toBe(0.75);
    expect(percentAgreement([], [])).toBeNull();
    expect(confusionMatrix([10, 2, 2, 1], [2, 2, 10, 1])).toEqual({
      categories: [1, 2, 10],
      matrix: [
        [1, 0, 0],
        [0, 1, 1],
        [0, 1, 0],
      ],
    });
    expect(confusionMatrix(['b', 'B', 'a'], ['a', 'B', 'a']).categories).toEqual(['B', 'a', 'b']);
    expect(confusionMatrix(['b', 'a'], ['a', 'a'], ['b', 'a', 'c']).matrix).toEqual([
      [0, 1, 0],
      [0, 1, 0],
      [0, 0, 0],
    ]);
  });
  it('more categories than the fast table holds (40) still tally exactly', () => {
    const a = Array.from({ length: 500 }, (_, i) => `c${(i * 7) % 40}`);
    const b = Array.from({ length: 500 }, (_, i) => `c${(i * 11) % 40}`);
    const { categories, matrix } = confusionMatrix(a, b);
    expect(categories).toHaveLength(40);
    expect(categories.slice(0, 3)).toEqual(['c0', 'c1', 'c10']);
    for (let i = 0; i < 500; i += 37) {
      const x = categories.indexOf(a[i]!);
      const y = categories.indexOf(b[i]!);
      const expected = a.filter((v, j) => v === a[i] && b[j] === b[i]).length;
      expect(matrix[x]![y]).toBe(expected);
    }
    expect(matrix.flat().reduce((s, v) => s + v, 0)).toBe(500);
  });
  it('an explicit list of more than 16 categories still leaves out unknown labels', () => {
    const cats = Array.from({ length: 20 }, (_, i) => i);
    const r = cohenKappa([0, 1, 19, 25, 3], [0, 1, 19, 3, 25], { categories: cats });
    expect([r.n, r.excluded, r.kappa]).toEqual([3, 2, 1]);
  });
  it('NaN and null labels are bad input, not a silent extra category', () => {
    expect(() => cohenKappa([1, NaN], [1, 2])).toThrow(/NaN is not a label/);
    expect(() => confusionMatrix([1, null as never], [1, 2])).toThrow(/null is not a label/);
  });
  it('different lengths are bad input', () => {
    expect(() => percentAgreement([1], [1, 2])).toThrow(badInput);
    expect(() => cohenKappa([1], [1, 2])).toThrow(/1 and 2 labels/);
  });
});

describe('kappa family', () => {
  it('one category used by both raters: kappa and pi are null with a reason; agreement is still 1', () => {
    for (const f of [cohenKappa, scottPi]) {
      const r = f(['yes', 'yes', 'yes'], ['yes', 'yes', 'yes']);
      expect(r.kappa).toBeNull();
      expect(r.ci).toBeNull();
      expect(r.reason).toMatch(/chance agreement is 1/);
      expect(r.agreement).toBe(1);
      noNaN(r);
    }
    expect(gwetAC(['yes', 'yes'], ['yes', 'yes']).reason).toMatch(/two categories/);
    // With the category list, AC1 is defined: chance agreement is 0, so AC1 = agreement = 1.
    expect(gwetAC(['yes', 'yes'], ['yes', 'yes'], { categories: ['yes', 'no'] }).kappa).toBe(1);
  });
  it('no pairs: null with a reason', () => {
    const r = cohenKappa([], []);
    expect([r.kappa, r.agreement, r.n]).toEqual([null, null, 0]);
    expect(r.reason).toMatch(/no pairs/);
    expect(cohenKappa(['a'], ['b'], { categories: ['c'] }).reason).toMatch(/among the categories/);
  });
  it('a one-pair table has kappa but the Scott/Gwet variance needs two', () => {
    const r = scottPi(['a'], ['b'], { categories: ['a', 'b'] });
    expect(r.kappa).toBe(-1);
    expect(r.se).toBeNull();
    noNaN(r);
  });
  it('perfect agreement is exactly 1 (SE 0, CI [1, 1]) for every method and weights', () => {
    // Six items over five categories: Σ (count/n) rounded to 0.9999999999999999, and kappa came out
    // 0.9999999999999996 (quadratic) with a nonzero SE; po from the integer counts is exactly 1.
    const a = [0, 3, 2, 1, 4, 3];
    for (const weights of ['none', 'linear', 'quadratic'] as const) {
      for (const f of [cohenKappa, scottPi, gwetAC]) {
        const r = f(a, a, { weights });
        expect([f.name, weights, r.kappa, r.ci]).toEqual([f.name, weights, 1, [1, 1]]);
      }
    }
  });
  it('hand-computed 2 × 2: po = 0.7, pe = 0.5 → kappa 0.4', () => {
    // rows a: yes 5 (4 yes, 1 no), no 5 (2 yes, 3 no) → po 0.7; marginals a .5/.5, b .6/.4 → pe .5
    const a = ['y', 'y', 'y', 'y', 'y', 'n', 'n', 'n', 'n', 'n'];
    const b = ['y', 'y', 'y', 'y', 'n', 'y', 'y', 'n', 'n', 'n'];
    expect(cohenKappa(a, b).kappa).toBeCloseTo(0.4, 14);
    // Scott: π = (.55, .45), pe = .505 → (0.7 − .505)/.495
    expect(scottPi(a, b).kappa).toBeCloseTo(0.195 / 0.495, 14);
    // Gwet: pe = 2·.55·.45/(2 − 1) = .495 → (0.7 − .495)/.505
    expect(gwetAC(a, b).kappa).toBeCloseTo(0.205 / 0.505, 14);
  });
  it('explicit category order drives the weights; duplicates and bad options are bad input', () => {
    const a = ['low', 'mid', 'high', 'mid'];
    const b = ['mid', 'mid', 'high', 'low'];
    const ordered = cohenKappa(a, b, { weights: 'linear', categories: ['low', 'mid', 'high'] });
    const reversed = cohenKappa(a, b, { weights: 'linear', categories: ['high', 'mid', 'low'] });
    const scrambled = cohenKappa(a, b, { weights: 'linear', categories: ['high', 'low', 'mid'] });
    expect(ordered.categories).toEqual(['low', 'mid', 'high']);
    expect(reversed.kappa).toBeCloseTo(ordered.kappa!, 14); // |i − j| is the same read either way
    expect(ordered.kappa).not.toBeCloseTo(scrambled.kappa!, 6);
    expect(() => cohenKappa(a, b, { categories: ['low', 'low'] })).toThrow(badInput);
    expect(() => cohenKappa(a, b, { confidence: 1 })).toThrow(badInput);
    expect(() => cohenKappa(a, b, { weights: 'cubic' as never })).toThrow(badInput);
  });
  it('weights on text labels without an order are bad input (code-point order is no order); numbers keep theirs', () => {
    // Quadratic, low < medium < high: po = 0.85, pe = 0.65 → 4/7. Read alphabetically (high < low < medium),
    // as it was before, the same labels gave −2/7, exit 0.
    const a = ['low', 'low', 'medium', 'high', 'high'];
    const b = ['low', 'medium', 'high', 'high', 'medium'];
    expect(cohenKappa(a, b, { weights: 'quadratic', categories: ['low', 'medium', 'high'] }).kappa).toBeCloseTo(4 / 7, 14);
    for (const f of [cohenKappa, scottPi, gwetAC]) {
      for (const weights of ['linear', 'quadratic'] as const) {
        expect(() => f(a, b, { weights }), `${f.name} ${weights}`).toThrow(/^weighted kappa needs the categories' order: the labels are text \(high, low, medium\), which has no order of its own; pass categories listing them from lowest to highest$/);
      }
      expect(f(a, b).kappa, `${f.name} unweighted`).not.toBeNull(); // nominal kappa needs no order
    }
    // The same data coded 1 < 2 < 3: numeric order, no list needed, the ordered value.
    const code = { low: 1, medium: 2, high: 3 } as const;
    const num = (xs: string[]) => xs.map((x) => code[x as keyof typeof code]);
    expect(cohenKappa(num(a), num(b), { weights: 'quadratic' }).kappa).toBeCloseTo(4 / 7, 14);
  });
  it('confidence changes only the interval', () => {
    const a = [1, 2, 3, 1, 2, 3, 1, 1];
    const b = [1, 2, 3, 1, 3, 3, 2, 1];
    const r95 = cohenKappa(a, b);
    const r99 = cohenKappa(a, b, { confidence: 0.99 });
    expect(r99.kappa).toBe(r95.kappa);
    // Below the clip the bound moves with z; past it the bound is 1 (kappa cannot exceed it).
    expect(r99.kappa! - r99.ci![0]).toBeCloseTo(((r95.kappa! - r95.ci![0]) * 2.5758293035489004) / 1.959963984540054, 12);
    expect(r99.ci![1]).toBe(Math.min(1, r99.kappa! + ((r95.ci![1] - r95.kappa!) * 2.5758293035489004) / 1.959963984540054));
  });
  it('interval bounds past ±1 are clipped: a near-perfect kappa on few items', () => {
    const r = cohenKappa([1, 1, 2, 2, 1, 2], [1, 1, 2, 2, 1, 1]);
    expect(r.kappa).toBeCloseTo(2 / 3, 12);
    // Wald: 0.667 ± 1.96 × 0.272 reaches 1.2; the clipped bound is 1.
    expect(r.ci![1]).toBe(1);
    expect(r.ci![0]).toBeCloseTo(r.kappa! - 1.959963984540054 * r.se!, 12);
  });
});

describe("Fleiss' kappa", () => {
  it('unequal raters per subject and ragged rows are bad input', () => {
    expect(() => fleissKappa([[1, 2], [2, 2]])).toThrow(/sums to 4 raters, row 1 to 3/);
    expect(() => fleissKappa([[1, 2], [3]])).toThrow(badInput);
    expect(() => fleissKappa([[1.5, 1.5]])).toThrow(badInput);
  });
  it('one category only, one rater, no subjects → null with reasons', () => {
    const one = fleissKappa([[3, 0], [3, 0]]);
    expect(one.kappa).toBeNull();
    expect(one.byCategory).toEqual({ '0': null, '1': null });
    expect(one.reason).toMatch(/one category/);
    expect(fleissKappa([[1, 0], [0, 1]]).reason).toMatch(/two raters/);
    expect(fleissKappa([]).reason).toMatch(/no subjects/);
    noNaN(one);
  });
  it('names categories when given', () => {
    expect(Object.keys(fleissKappa([[2, 1], [0, 3]], ['yes', 'no']).byCategory)).toEqual(['yes', 'no']);
  });
});

describe("Krippendorff's alpha", () => {
  it('nothing pairable, no variation → null with reasons', () => {
    const none = krippendorffAlpha([[1, null], [null, 2]], 'nominal');
    expect(none.alpha).toBeNull();
    expect(none.reason).toMatch(/pairable/);
    const same = krippendorffAlpha([[1, 1], [1, 1]], 'interval');
    expect(same.alpha).toBeNull();
    expect(same.reason).toMatch(/expected disagreement is 0/);
    noNaN([none, same]);
  });
  it('one value throughout is 0/0 at every level, even when its mean does not round exactly', () => {
    // 0.7 six times has a mean of 0.7000000000000001: the interval closed form saw that residue as spread and said alpha = 1.
    for (const level of ['nominal', 'ordinal', 'interval', 'ratio'] as const) {
      const r = krippendorffAlpha([[0.7, 0.7, 0.7], [0.7, 0.7, 0.7]], level);
      expect(r, level).toMatchObject({ alpha: null, pairable: 3, values: 6, reason: expect.stringMatching(/all pairable values are the same/) });
    }
    // A different value in a unit nobody else rated is not pairable, so it does not make the data vary.
    expect(krippendorffAlpha([[0.1, 0.1, 5], [0.1, 0.1, null]], 'interval').alpha).toBeNull();
  });
  it('hand-computed nominal: units (a,a) and (a,b) give alpha 0', () => {
    // o_ab = o_ba = 1, n = 4, n_a = 3, n_b = 1: alpha = 1 − (n − 1)·2 / (2·3·1) = 1 − 3·2/6 = 0
    expect(krippendorffAlpha([['a', 'a'], ['a', 'b']], 'nominal').alpha).toBeCloseTo(0, 14);
  });
  it('ordinal honours an explicit order; bad levels and values are bad input', () => {
    const data = [['lo', 'mid', 'hi', 'mid'], ['lo', 'hi', 'hi', 'mid']];
    const ordered = krippendorffAlpha(data, 'ordinal', { order: ['lo', 'mid', 'hi'] });
    const scrambled = krippendorffAlpha(data, 'ordinal', { order: ['hi', 'lo', 'mid'] });
    expect(ordered.alpha).not.toBeCloseTo(scrambled.alpha!, 6);
    // Text without an order was read in code-point order (hi < lo < mid), exit 0: now refused.
    expect(() => krippendorffAlpha(data, 'ordinal')).toThrow(/^ordinal alpha needs the values' order: the labels are text \(hi, lo, mid\), which has no order of its own; pass order listing them from lowest to highest$/);
    expect(krippendorffAlpha(data, 'nominal').alpha).toBeCloseTo(krippendorffAlpha(data, 'nominal', { order: ['hi', 'lo', 'mid'] }).alpha!, 14);
    const coded = data.map((row) => row.map((v) => ({ lo: 1, mid: 2, hi: 3 })[v]!));
    expect(krippendorffAlpha(coded, 'ordinal').alpha).toBeCloseTo(ordered.alpha!, 14);
    expect(() => krippendorffAlpha(data, 'ordinal', { order: ['lo', 'mid'] })).toThrow(/not in the order/);
    expect(() => krippendorffAlpha(data, 'interval')).toThrow(/needs numbers/);
    expect(() => krippendorffAlpha([[-1, 2], [1, 2]], 'ratio')).toThrow(/≥ 0/);
    expect(() => krippendorffAlpha([[1, 2], [1]], 'nominal')).toThrow(/use null for missing/);
    expect(() => krippendorffAlpha([[1, 2]], 'cardinal' as never)).toThrow(badInput);
  });
  it('many distinct interval values use the closed form and agree with the pairwise definition', () => {
    const raters = 3;
    const units = 300;
    const data = Array.from({ length: raters }, (_, r) => Array.from({ length: units }, (_, u) => ((u * 7919 + r * 104729) % 1000) / 7 + u));
    const fast = krippendorffAlpha(data, 'interval').alpha!;
    // Direct: D_o and D_e over all value pairs.
    const values = data.flat();
    let dObs = 0;
    for (let u = 0; u < units; u++) {
      const vs = data.map((row) => row[u]!);
      for (let i = 0; i < raters; i++) for (let j = 0; j < raters; j++) if (i !== j) dObs += (vs[i]! - vs[j]!) ** 2 / (raters - 1);
    }
    let dExp = 0;
    for (const x of values) for (const y of values) dExp += (x - y) ** 2;
    const n = values.length;
    expect(fast).toBeCloseTo(1 - ((n - 1) * dObs) / dExp, 10);
  });
});

describe('Wilson', () => {
  it('zero trials → null; bad counts are bad input; ends are exact at 0 and n', () => {
    expect(wilson(0, 0)).toEqual({ estimate: null, ci: null, reason: 'no trials' });
    expect(() => wilson(3, 2)).toThrow(/cannot exceed/);
    expect(() => wilson(-1, 2)).toThrow(badInput);
    expect(() => wilson(1.5, 2)).toThrow(badInput);
    expect(() => wilson(1, 2, 0)).toThrow(badInput);
    expect(wilson(0, 10).ci![0]).toBe(0);
    expect(wilson(10, 10).ci![1]).toBe(1);
    // 0/10: upper = z²/(n + z²)
    const z2 = 1.959963984540054 ** 2;
    expect(wilson(0, 10).ci![1]).toBeCloseTo(z2 / (10 + z2), 14);
  });
});

describe('correlations', () => {
  it('too few pairs and zero variance → null with a reason; unequal lengths and NaN are bad input', () => {
    expect(pearson([1, 2], [3, 4]).reason).toMatch(/at least 3/);
    expect(pearson([1, 1, 1], [1, 2, 3]).reason).toMatch(/zero variance/);
    expect(spearman([1, 1, 1], [1, 2, 3]).r).toBeNull();
    expect(kendall([1, 1, 1], [1, 2, 3]).r).toBeNull();
    expect(kendall([1], [1]).reason).toMatch(/at least 2/);
    // 0.1 seven times has a mean of 0.10000000000000002: the residue read as variance gave r = 0, p = 1 and a CI.
    expect(pearson(Array(7).fill(0.1), [1, 2, 3, 4, 5, 6, 7])).toMatchObject({ r: null, p: null, ci: null, reason: expect.stringMatching(/zero variance/) });
    expect(pearson([1, 2, 3, 4, 5], Array(5).fill(0.7))).toMatchObject({ r: null, p: null, ci: null });
    expect(() => pearson([1, 2, 3], [1, 2])).toThrow(badInput);
    expect(() => spearman([1, NaN, 3], [1, 2, 3])).toThrow(badInput);
    noNaN([pearson([1, 1, 1], [1, 2, 3]), kendall([1, 1, 1], [1, 2, 3])]);
  });
  it('perfect correlation: r = ±1, p = 0, degenerate CI', () => {
    const r = pearson([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]);
    expect(r.r).toBe(1);
    expect(r.p).toBe(0);
    expect(r.ci).toEqual([1, 1]);
    expect(spearman([1, 2, 3, 4], [40, 30, 20, 10]).r).toBe(-1);
  });
  it('average ranks for ties', () => {
    expect(Array.from(averageRanks([10, 20, 10, 30, 20, 20]))).toEqual([1.5, 4, 1.5, 6, 4, 4]);
  });
  it('Kendall tau-b by hand: x = 1,2,3,4 and y = 1,3,2,4 → (5 − 1)/6', () => {
    expect(kendall([1, 2, 3, 4], [1, 3, 2, 4]).r).toBeCloseTo(4 / 6, 14);
  });
});

describe('McNemar', () => {
  it('no discordant pairs: statistic null with a reason, p = 1; negative counts are bad input', () => {
    const r = mcnemar(0, 0);
    expect(r.statistic).toBeNull();
    expect(r.p).toBe(1);
    expect(r.reason).toMatch(/no discordant pairs/);
    expect(() => mcnemar(-1, 2)).toThrow(badInput);
    // b = c with the correction: Edwards' |b − c| − 1 is floored at 0 (R would report 1/(b + c)).
    expect(mcnemar(4, 4).statistic).toBe(0);
    expect(mcnemar(4, 4).p).toBe(1);
  });
});

describe('ICC', () => {
  it('needs 2 subjects and 2 raters; ragged and non-numeric input is bad input', () => {
    const r = icc([[1, 2]]);
    expect(r.ICC1.value).toBeNull();
    expect(r.reason).toMatch(/at least 2 subjects/);
    expect(() => icc([[1, 2], [3]])).toThrow(badInput);
    expect(() => icc([[1, 2], [3, NaN]])).toThrow(badInput);
    noNaN(r);
  });
  it('all ratings equal → every form null (0/0), no NaN', () => {
    const r = icc([[3, 3], [3, 3], [3, 3]]);
    for (const f of ['ICC1', 'ICC2', 'ICC3', 'ICC1k', 'ICC2k', 'ICC3k'] as const) expect(r[f].value).toBeNull();
    noNaN(r);
  });
  it('constant data whose mean does not round exactly is still 0/0 (rounding residue is no variance)', () => {
    // 6 × (1/6) sums to 0.9999999999999999: the mean squares were ~1e-32 of residue, and ICC1 came out 1, ICC2 0.4286.
    for (const data of [[[1, 1], [1, 1], [1, 1]], [[0.1, 0.1, 0.1], [0.1, 0.1, 0.1]], [[0.7, 0.7], [0.7, 0.7], [0.7, 0.7], [0.7, 0.7], [0.7, 0.7]]]) {
      const r = icc(data);
      for (const f of ['ICC1', 'ICC2', 'ICC3', 'ICC1k', 'ICC2k', 'ICC3k'] as const) expect(r[f].value, `${f} of ${JSON.stringify(data)}`).toBeNull();
      expect(r.reason).toMatch(/every rating is the same/);
      noNaN(r);
    }
  });
  it('identical subjects: MSR = 0 exactly, so the forms dividing by MSR (or by 0/0) are null, not 1 or −8.7e30', () => {
    // Raters 0.1 and 0.3 on three identical subjects. By hand: MSR = 0, MSE = 0, MSC = 3·2·0.01/1 = 0.06, MSW = 0.12/3 = 0.04.
    // ICC1 = (0 − MSW)/(0 + MSW) = −1; ICC1k = −MSW/0 undefined; ICC3 = ICC3k = 0/0; ICC2 = 0/(2·0.06/3) = 0, ICC2k = 0.
    const r = icc([[0.1, 0.3], [0.1, 0.3], [0.1, 0.3]]);
    expect(r.ICC1.value).toBeCloseTo(-1, 12);
    expect(r.ICC1k.value).toBeNull();
    expect(r.ICC3.value).toBeNull();
    expect(r.ICC3k.value).toBeNull();
    expect(r.ICC2.value).toBe(0);
    expect(r.ICC2k.value).toBe(0);
    expect(r.ICC1.F).toBe(0);
    expect(r.ICC1.p).toBe(1);
    expect(r.ICC3.F).toBeNull();
    noNaN(r);
  });
  it('forms left null on data that is not constant come with a reason naming them', () => {
    // Same subjects as above: ICC1k, ICC3 and ICC3k are null; the result used to carry no reason at all.
    const r = icc([[0.1, 0.3], [0.1, 0.3], [0.1, 0.3]]);
    expect(r.reason).toBe('ICC3, ICC1k, ICC3k undefined: every subject has the same mean rating (MSR = 0), so they divide by 0');
    expect(icc([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8]]).reason).toBeUndefined();
  });
});

describe('bootstrap', () => {
  it('empty input or a statistic undefined on the full sample → null with a reason', () => {
    expect(bootstrapCI([], () => 1, { seed: 1 }).reason).toMatch(/no units/);
    expect(bootstrapCI([1, 2], () => null, { seed: 1 }).reason).toMatch(/undefined on the full sample/);
    expect(() => bootstrapCI([1], () => 1, { seed: 1, resamples: 0 })).toThrow(badInput);
  });
  it('resamples on which the statistic is undefined are left out and counted', () => {
    const r = bootstrapCI([0, 1, 2, 3, 4, 5, 6, 7], (s) => (s.includes(0) ? s.length : null), { seed: 3, resamples: 500 });
    expect(r.estimate).toBe(8);
    expect(r.resamples).toBeGreaterThan(300);
    expect(r.resamples).toBeLessThan(500);
  });
});
