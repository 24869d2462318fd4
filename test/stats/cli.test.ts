import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectBadInput, runCli } from '../helpers/cli.ts';

/** `assay stats …` through the real binary: output keys of design §3, exit 2 with one line naming the file. */

// Each run starts a Node process; on a loaded machine that takes seconds, hence the generous timeout.
const T = 120_000;
const dir = mkdtempSync(join(tmpdir(), 'assay-stats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

// SAS / statsmodels table [[0,4,1],[0,8,0],[0,1,5]] as label arrays.
const sasA = [...Array(5).fill(0), ...Array(8).fill(1), ...Array(6).fill(2)];
const sasB = [1, 1, 1, 1, 2, ...Array(8).fill(1), 1, 2, 2, 2, 2, 2];
const A = file('a.json', sasA);
const B = file('b.json', sasB);

describe('assay stats kappa', () => {
  it('prints kappa, SE, CI, agreement, n and categories (SAS: 0.4842, ASE 0.1380, CI 0.2137–0.7547)', () => {
    const r = runCli(['stats', 'kappa', '--a', A, '--b', B, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = r.json();
    expect(Object.keys(j)).toEqual(['kappa', 'se', 'ci', 'agreement', 'n', 'categories', 'method', 'weights']);
    expect(j.kappa).toBeCloseTo(0.4842, 4);
    expect(j.se).toBeCloseTo(0.138, 4);
    expect(j.ci[0]).toBeCloseTo(0.2137, 4);
    expect(j.ci[1]).toBeCloseTo(0.7547, 4);
    expect(j.agreement).toBeCloseTo(13 / 19, 12);
    expect([j.n, j.categories, j.method, j.weights]).toEqual([19, [0, 1, 2], 'cohen', 'none']);
  }, T);
  it('weights, methods, a category file and CSV input', () => {
    expect(runCli(['stats', 'kappa', '--a', A, '--b', B, '--weights', 'linear', '--json']).json().kappa).toBeCloseTo(0.4701, 4);
    const gwet = runCli(['stats', 'kappa', '--a', A, '--b', B, '--method', 'gwet', '--json']).json();
    expect(gwet.method).toBe('gwet');
    const csvA = file('a.csv', sasA.join('\n') + '\n');
    const csvB = file('b.csv', sasB.join('\r\n'));
    expect(runCli(['stats', 'kappa', '--a', csvA, '--b', csvB, '--json']).json().kappa).toBeCloseTo(0.4842, 4);
    const cats = file('cats.json', [2, 1, 0]);
    const reordered = runCli(['stats', 'kappa', '--a', A, '--b', B, '--categories', cats, '--weights', 'linear', '--json']).json();
    expect(reordered.categories).toEqual([2, 1, 0]);
    expect(reordered.kappa).toBeCloseTo(0.4701, 4); // reversing the order keeps |i − j|
  }, T);
  it('readable output without --json', () => {
    const r = runCli(['stats', 'kappa', '--a', A, '--b', B]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Cohen's kappa\s+0\.4842/);
    expect(r.stdout).toMatch(/95% CI\s+\[0\.2137, 0\.7547\]/);
  }, T);
  it('undefined kappa is null with a reason, exit 0', () => {
    const same = file('same.json', ['x', 'x', 'x']);
    const r = runCli(['stats', 'kappa', '--a', same, '--b', same, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ kappa: null, se: null, ci: null, agreement: 1, n: 3 });
    expect(r.json().reason).toMatch(/chance agreement is 1/);
  }, T);
  const cases: [string, () => string[], RegExp][] = [
    ['different lengths', () => ['--a', A, '--b', file('short.json', [1, 2])], /--a .*a\.json has 19 labels but --b .*short\.json has 2/],
    ['empty file', () => ['--a', file('empty.json', ''), '--b', B], /--a .*empty\.json: empty file/],
    ['empty array', () => ['--a', file('emptyarr.json', []), '--b', B], /emptyarr\.json: empty/],
    ['not an array', () => ['--a', file('obj.json', { a: 1 }), '--b', B], /obj\.json: expected a JSON array/],
    ['missing label', () => ['--a', file('nulls.json', [1, null]), '--b', file('two.json', [1, 2])], /nulls\.json: value 2 is missing/],
    ['no such file', () => ['--a', join(dir, 'nope.json'), '--b', B], /nope\.json: no such file/],
    ['unknown weights', () => ['--a', A, '--b', B, '--weights', 'cubic'], /--weights must be one of none\|linear\|quadratic/],
    ['missing --b', () => ['--a', A], /missing required option --b/],
    ['invalid JSON', () => ['--a', file('bad.json', '[1,'), '--b', B], /bad\.json: not valid JSON/],
    ['two-column CSV', () => ['--a', file('wide.csv', '1,2\n3,4\n'), '--b', B], /wide\.csv: line 1 has 2 cells/],
  ];
  it.each(cases)('bad input exits 2 naming the file: %s', (_name, args, pattern) => expectBadInput(['stats', 'kappa', ...args()], pattern), T);
  it('--weights on text labels needs --categories (before: read high < low < medium, quadratic −0.2857 for 0.5714, exit 0)', () => {
    const a = file('lmh-a.json', ['low', 'low', 'medium', 'high', 'high']);
    const b = file('lmh-b.json', ['low', 'medium', 'high', 'high', 'medium']);
    const order = /^assay stats kappa: weighted kappa needs the categories' order: the labels are text \(high, low, medium\), which has no order of its own; give --categories FILE listing them from lowest to highest$/;
    for (const weights of ['linear', 'quadratic']) expectBadInput(['stats', 'kappa', '--a', a, '--b', b, '--weights', weights], order);
    expectBadInput(['stats', 'kappa', '--a', a, '--b', b, '--weights', 'linear', '--method', 'gwet'], order);
    const cats = file('lmh.json', ['low', 'medium', 'high']);
    const r = runCli(['stats', 'kappa', '--a', a, '--b', b, '--weights', 'quadratic', '--categories', cats, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().kappa).toBeCloseTo(4 / 7, 12); // po 0.85, pe 0.65
    expect(r.json().categories).toEqual(['low', 'medium', 'high']);
    expect(runCli(['stats', 'kappa', '--a', a, '--b', b, '--json']).code).toBe(0); // unweighted needs no order
  }, T);
});

describe('assay stats fleiss', () => {
  it('Wikipedia example: kappa 0.210 with SE, z, p and per-category kappas', () => {
    const data = file('fleiss.json', [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]);
    const r = runCli(['stats', 'fleiss', '--data', data, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = r.json();
    expect(Object.keys(j).slice(0, 4)).toEqual(['kappa', 'se', 'z', 'p']);
    expect(j.kappa).toBeCloseTo(0.21, 3);
    expect(j.z).toBeCloseTo(j.kappa / j.se, 10);
    expect(Object.keys(j.byCategory)).toEqual(['0', '1', '2', '3', '4']);
  }, T);
  it('--raw counts subjects × raters labels first (Fleiss 1971 diagnoses: 0.4302445, categories named by label)', () => {
    const diagnoses = [[4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5], [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4], [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4], [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5], [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5], [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4], [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5]];
    const j = runCli(['stats', 'fleiss', '--data', file('diagnoses.json', diagnoses), '--raw', '--json']).json();
    expect(j.kappa).toBeCloseTo(0.4302445, 7);
    expect(j.z).toBeCloseTo(17.65183, 5);
    expect(Object.keys(j.byCategory)).toEqual(['1', '2', '3', '4', '5']);
    expect(j.byCategory['3']).toBeCloseTo(0.52, 12);
    // --categories names count columns; with --raw it was silently dropped (exit 0). POST /api/stats/fleiss refuses it too.
    expectBadInput(['stats', 'fleiss', '--data', file('raw.json', [['a', 'b'], ['a', 'a']]), '--raw', '--categories', file('names.json', ['a', 'b', 'c'])], /--categories: not used with --raw \(the labels name the categories\)/);
  }, T);
  it('ragged, non-numeric and unequal rater counts exit 2', () => {
    expectBadInput(['stats', 'fleiss', '--data', file('ragged.json', [[1, 2], [3]])], /ragged\.json: row 2 has 1 values, row 1 has 2/);
    expectBadInput(['stats', 'fleiss', '--data', file('text.json', [[1, 'x']])], /text\.json: row 1, column 2 is "x", expected a number/);
    expectBadInput(['stats', 'fleiss', '--data', file('uneven.json', [[1, 2], [2, 2]])], /uneven\.json: counts: row 2 sums to 4 raters/);
  }, T);
});

describe('assay stats alpha', () => {
  const kripp = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
    [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
  ];
  const expected: [string, number, string][] = [
    ['nominal', 0.743, 'json'],
    ['ordinal', 0.815, 'json'],
    ['interval', 0.849, 'json'],
    ['ratio', 0.797, 'json'],
    ['nominal', 0.743, 'csv'],
    ['interval', 0.849, 'csv'],
  ];
  it.each(expected)('Krippendorff 2011, %s level = %s, from %s (CSV: empty cells and NA are missing)', (level, value, kind) => {
    const path =
      kind === 'json'
        ? file('k.json', kripp)
        : file('k.csv', kripp.map((row) => row.map((v, i) => (v === null ? (i % 2 ? 'NA' : '') : v)).join(',')).join('\n'));
    const r = runCli(['stats', 'alpha', '--data', path, '--level', level, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = r.json();
    expect(Object.keys(j).slice(0, 3)).toEqual(['alpha', 'level', 'units']);
    expect(j.alpha).toBeCloseTo(value, 3);
    expect([j.level, j.units]).toEqual([level, 12]);
  }, T);
  it('unknown level, missing level, text at the interval level and ragged rows exit 2', () => {
    const json = file('k2.json', kripp);
    expectBadInput(['stats', 'alpha', '--data', json, '--level', 'cardinal'], /--level must be one of nominal\|ordinal\|interval\|ratio/);
    expectBadInput(['stats', 'alpha', '--data', json], /missing required option --level/);
    expectBadInput(['stats', 'alpha', '--data', file('words.json', [['a', 'b'], ['a', 'c']]), '--level', 'interval'], /words\.json: .*needs numbers/);
    expectBadInput(['stats', 'alpha', '--data', file('ragged.csv', '1,2,3\n1,2\n'), '--level', 'nominal'], /ragged\.csv: row 2 has 2 values/);
  }, T);
  it('ordinal on text values needs --order (before: read in code-point order, exit 0)', () => {
    const data = file('lmh-k.json', [['low', 'medium', 'high', 'high'], ['low', 'high', 'high', 'medium']]);
    expectBadInput(['stats', 'alpha', '--data', data, '--level', 'ordinal'], /^assay stats alpha: ordinal alpha needs the values' order: the labels are text \(high, low, medium\), which has no order of its own; give --order FILE listing them from lowest to highest$/);
    const coded = runCli(['stats', 'alpha', '--data', file('lmh-k1.json', [[1, 2, 3, 3], [1, 3, 3, 2]]), '--level', 'ordinal', '--json']).json();
    const ordered = runCli(['stats', 'alpha', '--data', data, '--level', 'ordinal', '--order', file('lmh-o.json', ['low', 'medium', 'high']), '--json']);
    expect(ordered.code, ordered.stderr).toBe(0);
    expect(ordered.json().alpha).toBeCloseTo(coded.alpha, 12);
  }, T);
});

describe('assay stats wilson', () => {
  it('18/20 → R binom.confint wilson [0.6989664, 0.9721335]', () => {
    const r = runCli(['stats', 'wilson', '--successes', '18', '--trials', '20', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = r.json();
    expect(Object.keys(j).slice(0, 2)).toEqual(['estimate', 'ci']);
    expect(j.estimate).toBe(0.9);
    expect(j.ci[0]).toBeCloseTo(0.6989663547715128, 6);
    expect(j.ci[1]).toBeCloseTo(0.972133518786232, 6);
    const wider = runCli(['stats', 'wilson', '--successes', '18', '--trials', '20', '--confidence', '0.99', '--json']).json();
    expect(wider.ci[0]).toBeLessThan(j.ci[0]);
  }, T);
  it('successes > trials, fractions and bad confidence exit 2', () => {
    expectBadInput(['stats', 'wilson', '--successes', '21', '--trials', '20'], /--successes 21 cannot exceed --trials 20/);
    expectBadInput(['stats', 'wilson', '--successes', '1.5', '--trials', '20'], /--successes must be a whole number/);
    expectBadInput(['stats', 'wilson', '--successes', '1', '--trials', '20', '--confidence', '95'], /--confidence must be strictly between 0 and 1 \(e\.g\. 0\.95\), got 95/);
    expectBadInput(['stats', 'wilson', '--trials', '20'], /missing required option --successes/);
  }, T);
  it('counts past 2^53 exit 2 instead of being rounded to another count', () => {
    // Before: 9007199254740993 / 9007199254740995 were read as 9007199254740992 / 9007199254740996, exit 0.
    expectBadInput(['stats', 'wilson', '--successes', '9007199254740993', '--trials', '9007199254740995'], /--successes must be a whole number of at most 9007199254740991, got '9007199254740993'/);
    expectBadInput(['stats', 'mcnemar', '--b', '1', '--c', '18014398509481985'], /--c must be a whole number of at most 9007199254740991/);
  }, T);
});

describe('assay stats corr', () => {
  const x = file('x.json', [44.4, 45.9, 41.9, 53.3, 44.7, 44.1, 50.7, 45.2, 60.1]);
  const y = file('y.json', [2.6, 3.1, 2.5, 5.0, 3.6, 4.0, 5.2, 2.8, 3.8]);
  it('Pearson with a Fisher-z CI (R cor.test: 0.5711816, p 0.1082, CI −0.1497426 to 0.8955795); Spearman and Kendall without', () => {
    const p = runCli(['stats', 'corr', '--x', x, '--y', y, '--method', 'pearson', '--json']).json();
    expect(Object.keys(p).slice(0, 4)).toEqual(['r', 'p', 'n', 'ci']);
    expect(p.r).toBeCloseTo(0.5711816, 7);
    expect(p.p).toBeCloseTo(0.1082, 4);
    expect(p.ci[0]).toBeCloseTo(-0.1497426, 7);
    expect(p.ci[1]).toBeCloseTo(0.8955795, 7);
    const s = runCli(['stats', 'corr', '--x', x, '--y', y, '--method', 'spearman', '--json']).json();
    expect(s.r).toBeCloseTo(0.6, 12);
    expect(s).not.toHaveProperty('ci');
    const k = runCli(['stats', 'corr', '--x', x, '--y', y, '--method', 'kendall', '--json']).json();
    expect(k.r).toBeCloseTo(4 / 9, 12);
  }, T);
  it('different lengths, text and unknown methods exit 2', () => {
    expectBadInput(['stats', 'corr', '--x', x, '--y', file('y2.json', [1, 2]), '--method', 'pearson'], /--x .*x\.json has 9 values but --y .*y2\.json has 2/);
    expectBadInput(['stats', 'corr', '--x', x, '--y', file('yt.json', [1, 2, 3, 'four', 5, 6, 7, 8, 9]), '--method', 'pearson'], /yt\.json: value 4 is "four", expected a number/);
    expectBadInput(['stats', 'corr', '--x', x, '--y', y, '--method', 'cosine'], /--method must be one of pearson\|spearman\|kendall/);
  }, T);
});

describe('undefined statistics say why in the readable output too (as --json does)', () => {
  it('wilson with no trials and mcnemar with no discordant pairs print their reason', () => {
    const w = runCli(['stats', 'wilson', '--successes', '0', '--trials', '0']);
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toMatch(/estimate\s+—/);
    expect(w.stdout).toMatch(/undefined because\s+no trials/);
    const m = runCli(['stats', 'mcnemar', '--b', '0', '--c', '0']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toMatch(/statistic\s+—/);
    expect(m.stdout).toMatch(/undefined because\s+no discordant pairs/);
  }, T);
});

describe('assay stats mcnemar', () => {
  it('R mcnemar.test: 16.818 (p 4.115e-05); --no-correction 17.356; --exact', () => {
    const r = runCli(['stats', 'mcnemar', '--b', '150', '--c', '86', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = r.json();
    expect(Object.keys(j).slice(0, 2)).toEqual(['statistic', 'p']);
    expect(j.statistic).toBeCloseTo(16.818, 3);
    expect(j.p).toBeCloseTo(4.114562e-5, 10);
    expect(runCli(['stats', 'mcnemar', '--b', '150', '--c', '86', '--no-correction', '--json']).json().statistic).toBeCloseTo(17.356, 3);
    const exact = runCli(['stats', 'mcnemar', '--b', '1', '--c', '5', '--exact', '--json']).json();
    expect(exact.p).toBeCloseTo(14 / 64, 14);
  }, T);
  it('negative counts exit 2', () => {
    expectBadInput(['stats', 'mcnemar', '--b=-1', '--c', '3'], /--b must be ≥ 0/);
  }, T);
});

describe('assay stats icc', () => {
  it('Shrout & Fleiss data: the six forms with F, p and CIs', () => {
    const data = file('sf.csv', '9,2,5,8\n6,1,3,2\n8,4,6,8\n7,1,2,6\n10,5,6,9\n6,2,4,7\n');
    const r = runCli(['stats', 'icc', '--data', data, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = r.json();
    expect(j.ICC1.value).toBeCloseTo(0.166, 3);
    expect(j.ICC3k.value).toBeCloseTo(0.909, 3);
    expect(j.ICC2.ci[0]).toBeCloseTo(0.019, 3);
    expect([j.subjects, j.raters]).toEqual([6, 4]);
    const text = runCli(['stats', 'icc', '--data', data]).stdout;
    expect(text).toMatch(/ICC3k\s+0\.9093/);
  }, T);
  it('missing cells exit 2 naming the file', () => {
    expectBadInput(['stats', 'icc', '--data', file('gap.csv', '1,2\n3,\n')], /gap\.csv: row 2, column 2 is missing, expected a number/);
  }, T);
});
