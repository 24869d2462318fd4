import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { normaliseLabel } from '../../src/domain/labels.ts';
import { confusionMatrix, percentAgreement } from '../../src/stats/agreement.ts';
import { countsFromRatings, fleissKappa } from '../../src/stats/fleiss.ts';
import { cohenKappa, gwetAC, scottPi } from '../../src/stats/kappa.ts';
import { krippendorffAlpha } from '../../src/stats/krippendorff.ts';
import { unifyLabelTypes } from '../../src/stats/label-types.ts';
import { expectBadInput, runCli } from '../helpers/cli.ts';

/**
 * Issue 11, finding 8: numbers that are silently wrong. `stats kappa` with integer labels in one file
 * and strings in the other printed kappa 0 over the categories "1, 2, 1, 2" and exited 0; `stats alpha`
 * on a units × raters matrix returned a meaningless 0.0101 without a word.
 */

const T = 120_000;
const dir = mkdtempSync(join(tmpdir(), 'assay-mixed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const badInput = expect.objectContaining({ code: 'bad_input' });

describe('the library refuses label sets that mix numbers and text', () => {
  it('kappa, pi, AC1, agreement and confusion: 1 and "1" are not two categories', () => {
    for (const f of [cohenKappa, scottPi, gwetAC]) {
      expect(() => f([1, 2, 1, 2], ['1', '2', '1', '2'])).toThrow(badInput);
      expect(() => f([1, 2, 1, 2], ['1', '2', '1', '2'])).toThrow(/labels mix numbers and text \(1 and "1", which differ only by type\)/);
    }
    expect(() => percentAgreement([1, 2], ['1', '2'])).toThrow(badInput);
    expect(() => confusionMatrix([1, 'x'], [1, 'x'])).toThrow(badInput);
    // an explicit category list of another type than the labels
    expect(() => cohenKappa([1, 2, 1], [1, 2, 2], { categories: ['1', '2'] })).toThrow(/labels and categories: labels mix numbers and text/);
    // one type, either type: fine
    expect(cohenKappa([1, 2, 1, 2], [1, 2, 1, 2]).kappa).toBe(1);
    expect(cohenKappa(['1', '2', '1', '2'], ['1', '2', '1', '2']).kappa).toBe(1);
  });

  it('Krippendorff alpha (data, and data against the order) and Fleiss --raw counts', () => {
    expect(() => krippendorffAlpha([[1, 2, 3], ['1', '2', '3']], 'nominal')).toThrow(/data: labels mix numbers and text/);
    expect(() => krippendorffAlpha([[1, 2, 3], [1, 2, 3]], 'ordinal', { order: ['1', '2', '3'] })).toThrow(/data and order: labels mix/);
    expect(() => countsFromRatings([[1, '1'], [2, 2]])).toThrow(/ratings: labels mix numbers and text/);
    expect(krippendorffAlpha([[1, 2, 3], [1, 2, 3]], 'nominal').alpha).toBe(1);
  });

  it('Fleiss category names: a repeated name is refused (it would drop a column from byCategory), "__proto__" is kept', () => {
    const counts = [[1, 2], [2, 1], [3, 0]];
    expect(() => fleissKappa(counts, ['a', 'a'])).toThrow(/categories: name "a" is listed twice/);
    expect(Object.keys(fleissKappa(counts, ['__proto__', 'b']).byCategory)).toEqual(['__proto__', 'b']);
  });
});

describe('unifyLabelTypes: the rule for files', () => {
  it('all numbers or all text pass untouched, without warnings', () => {
    const src = [{ source: '--a a.json', values: [1, 2] }, { source: '--b b.json', values: [2, 1] }];
    expect(unifyLabelTypes(src)).toEqual({ sources: src, warnings: [] });
    const text = [{ source: '--a a.json', values: ['1', 'x'] }];
    expect(unifyLabelTypes(text).warnings).toEqual([]);
  });

  it('plain integer text next to numbers is read as numbers, and the warning says where', () => {
    const r = unifyLabelTypes([
      { source: '--a a.json', values: [1, 2, null] },
      { source: '--b b.json', values: ['1', '-2', '30'] },
    ]);
    expect(r.sources.map((s) => s.values)).toEqual([[1, 2, null], [1, -2, 30]]);
    expect(r.warnings).toEqual([
      '3 labels written as text in --b b.json (e.g. --b b.json value 1 is the text "1") read as numbers, to match the numeric labels (e.g. --a a.json value 1 is the number 1)',
    ]);
    // matrices too, positions by row and column
    const m = unifyLabelTypes([{ source: '--data d.json', values: [[1, '2'], [null, 2]] }]);
    expect(m.sources[0]!.values).toEqual([[1, 2], [null, 2]]);
    expect(m.warnings[0]).toMatch(/^1 label written as text in --data d\.json \(e\.g\. --data d\.json row 1, column 2 is the text "2"\)/);
  });

  it('any other text next to numbers is bad input naming a number and the text, with their files and positions', () => {
    const cases: [unknown[], RegExp][] = [
      [['1', 'yes'], /--a a\.json value 1 is the number 1 but --b b\.json value 2 is the text "yes"/],
      [['1.0', '2'], /but --b b\.json value 1 is the text "1\.0"/],
      [['01', '2'], /the text "01"/],
      [[' 1', '2'], /the text " 1"/],
      [['1e0', '2'], /the text "1e0"/],
    ];
    for (const [b, msg] of cases) {
      const f = () => unifyLabelTypes([{ source: '--a a.json', values: [1, 2] }, { source: '--b b.json', values: b as string[] }]);
      expect(f).toThrow(badInput);
      expect(f).toThrow(msg);
    }
  });
});

describe('calibrate label reading', () => {
  it('the numeric scale reads decimal text only ("0x10" is not 16)', () => {
    expect(normaliseLabel('numeric', '2.5', 'x')).toEqual({ category: 2.5, value: 2.5 });
    expect(normaliseLabel('numeric', ' 3 ', 'x')).toEqual({ category: 3, value: 3 });
    for (const bad of ['0x10', '0b1', '0o7', 'Infinity', '1_000', true]) {
      expect(() => normaliseLabel('numeric', bad, 'labels.jsonl: line 1')).toThrow(/line 1: field 'label'.*not valid on the numeric scale/);
    }
  });
  it('binary and verdict scales map every spelling to one category', () => {
    for (const v of [true, 'true', 'TRUE', 'yes', 'pass', 1, '1']) expect(normaliseLabel('binary', v, 'x').category).toBe('true');
    expect(() => normaliseLabel('verdict', 1, 'x')).toThrow(badInput);
  });
});

describe('assay stats: mixed label types through the real binary', () => {
  const ints = file('ints.json', [1, 2, 1, 2, 1, 2]);
  const strs = file('strs.json', ['1', '2', '1', '2', '1', '2']);

  it('kappa: integers against integer strings is kappa 1 over categories 1, 2 (was 0 over "1, 2, 1, 2"), with a warning', () => {
    const r = runCli(['stats', 'kappa', '--a', ints, '--b', strs, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ kappa: 1, agreement: 1, n: 6, categories: [1, 2] });
    expect(r.json().warnings).toHaveLength(1);
    expect(r.json().warnings[0]).toMatch(/6 labels written as text in --b .*strs\.json .* read as numbers/);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^assay stats kappa: warning: 6 labels written as text/)]);
    const text = runCli(['stats', 'kappa', '--a', ints, '--b', strs]);
    expect(text.stdout).toMatch(/categories\s+1, 2\n/);
  }, T);

  it('kappa: bad input when the text is not plain integers, within one file, booleans, or a category list of words', () => {
    expectBadInput(['stats', 'kappa', '--a', ints, '--b', file('words.json', ['1', 'yes', '1', '2', '1', '2'])], /labels mix numbers and text: --a .*ints\.json value 1 is the number 1 but --b .*words\.json value 2 is the text "yes"/);
    expectBadInput(['stats', 'kappa', '--a', file('mixed.json', [1, 'a', 1, 2, 1, 2]), '--b', ints], /--a .*mixed\.json value 2 is the text "a"/);
    expectBadInput(['stats', 'kappa', '--a', file('bools.json', [true, false, true, false, true, false]), '--b', ints], /bools\.json: value 1 is true, expected a string, a number or null/);
    expectBadInput(['stats', 'kappa', '--a', ints, '--b', ints, '--categories', file('cats.json', ['one', 'two'])], /--categories .*cats\.json value 1 is the text "one"/);
  }, T);

  it('alpha, fleiss --raw and corr: the same rule (mixed matrix refused; corr needs numbers)', () => {
    expectBadInput(['stats', 'alpha', '--data', file('am.json', [[1, 2, 'x'], [1, 2, 3]]), '--level', 'nominal'], /--data .*am\.json row 1, column 1 is the number 1 but --data .*am\.json row 1, column 3 is the text "x"/);
    expectBadInput(['stats', 'fleiss', '--raw', '--data', file('fm.json', [[1, 'b'], [1, 1], [2, 2]])], /fm\.json row 1, column 2 is the text "b"/);
    expectBadInput(['stats', 'fleiss', '--data', file('fc.json', [[1, 2], [2, 1]]), '--categories', file('fcn.json', ['a', 'a'])], /--categories .*fcn\.json: value 2: name "a" is listed twice/);
    expectBadInput(['stats', 'corr', '--x', file('x.json', [1, 2, 3]), '--y', file('y.json', [1, '2', 3])], /--y .*y\.json: value 2 is "2", expected a number/);
    const a = runCli(['stats', 'alpha', '--data', file('ai.json', [[1, 2, 3, 1], ['1', '2', '3', '1']]), '--level', 'interval', '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.json().alpha).toBe(1);
    expect(a.json().warnings).toEqual([expect.stringMatching(/4 labels written as text in --data .*ai\.json/)]);
  }, T);
});

describe('assay stats alpha: orientation', () => {
  // 12 units rated by 3 raters, written the right way (3 × 12) and transposed (12 × 3)
  const raters = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, 3, 4, 4],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 3, 4, 4],
    [1, 2, 3, 3, 2, 1, 4, 1, 2, 3, 3, 4],
  ];
  const units = raters[0]!.map((_, u) => raters.map((r) => r[u]!));

  it('raters × units: no warning, and the JSON keys of design §3 without `warnings`', () => {
    const r = runCli(['stats', 'alpha', '--data', file('right.json', raters), '--level', 'nominal', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(Object.keys(r.json())).toEqual(['alpha', 'level', 'units', 'pairable', 'values']);
    expect(r.json().units).toBe(12);
  }, T);

  it('more rows than columns: exit 0, alpha as read, and a warning on stderr and in --json `warnings`', () => {
    const path = file('transposed.json', units);
    const r = runCli(['stats', 'alpha', '--data', path, '--level', 'nominal', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().units).toBe(3);
    const warning = expect.stringMatching(/transposed\.json has 12 rows and 3 columns, read as 12 raters × 3 units; .*one row per rater and one column per unit .* transpose the matrix/);
    expect(r.json().warnings).toEqual([warning]);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual([expect.stringMatching(/^assay stats alpha: warning: .*12 rows and 3 columns/)]);
    const text = runCli(['stats', 'alpha', '--data', path, '--level', 'nominal']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/raters × units\s+12 × 3/);
    expect(text.stderr).toMatch(/warning: .*transpose the matrix/);
  }, T);

  it('the help text states the orientation at the top', () => {
    const r = runCli(['stats', 'alpha', '--help']);
    expect(r.code).toBe(0);
    const [usage, , summary] = r.stdout.split('\n');
    expect(usage).toMatch(/^Usage: assay stats alpha --data FILE \(rows = raters, columns = units\)/);
    expect(summary).toMatch(/raters × units matrix: one row per rater, one column per unit/);
  }, T);
});

describe('assay stats icc: orientation', () => {
  // 8 subjects rated by 3 raters (subjects × raters), and the same matrix transposed (3 × 8).
  const subjects = [
    [9, 2, 5],
    [6, 1, 3],
    [8, 4, 6],
    [7, 1, 2],
    [10, 5, 6],
    [6, 2, 4],
    [9, 3, 5],
    [7, 2, 3],
  ];
  const transposed = subjects[0]!.map((_, r) => subjects.map((s) => s[r]!));

  it('subjects × raters: no warning and no `warnings` key', () => {
    const r = runCli(['stats', 'icc', '--data', file('icc-right.json', subjects), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.json()).not.toHaveProperty('warnings');
    expect(r.json()).toMatchObject({ subjects: 8, raters: 3 });
  }, T);

  it('more columns than rows: exit 0, ICC as read, and the transpose warning on stderr and in --json', () => {
    const r = runCli(['stats', 'icc', '--data', file('icc-transposed.json', transposed), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ subjects: 3, raters: 8 });
    expect(r.json().warnings).toEqual([expect.stringMatching(/icc-transposed\.json has 3 rows and 8 columns, read as 3 subjects × 8 raters; .*one row per subject and one column per rater .* transpose the matrix/)]);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^assay stats icc: warning: /)]);
  }, T);

  it('the help text states the orientation at the top', () => {
    const [usage] = runCli(['stats', 'icc', '--help']).stdout.split('\n');
    expect(usage).toMatch(/^Usage: assay stats icc --data FILE \(rows = subjects, columns = raters\)/);
  }, T);
});
