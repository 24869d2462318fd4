import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pearson } from '../../src/stats/correlation.ts';
import { countsFromRatings as libraryCounts, fleissKappa } from '../../src/stats/fleiss.ts';
import { cohenKappa } from '../../src/stats/kappa.ts';
import { krippendorffAlpha, type AlphaLevel } from '../../src/stats/krippendorff.ts';
import { wilson } from '../../src/stats/wilson.ts';

/** Every case of the published reference file, dispatched on its `statistic`, at its own tolerance. */

interface ReferenceCase {
  name: string;
  statistic: string;
  source: string;
  params: Record<string, any>;
  input: Record<string, any>;
  expected: Record<string, number | number[]>;
  tolerance: Record<string, number>;
  note: string;
}

const cases: ReferenceCase[] = JSON.parse(readFileSync(new URL('../fixtures/stats_reference_cases.json', import.meta.url), 'utf8'));

type Computed = Record<string, number | number[] | null>;

function countsFromRatings(ratings: number[][], categories: number[]): number[][] {
  return ratings.map((row) => categories.map((c) => row.filter((v) => v === c).length));
}

const HANDLERS: Record<string, (c: ReferenceCase) => Computed> = {
  cohen_kappa_unweighted: (c) => ({ kappa: cohenKappa(c.input.y1, c.input.y2).kappa }),
  cohen_kappa_weighted: (c) => ({
    kappa_unweighted: cohenKappa(c.input.y1, c.input.y2, { weights: 'none' }).kappa,
    kappa_linear: cohenKappa(c.input.y1, c.input.y2, { weights: 'linear' }).kappa,
    kappa_quadratic: cohenKappa(c.input.y1, c.input.y2, { weights: 'quadratic' }).kappa,
  }),
  fleiss_kappa: (c) => {
    const counts = countsFromRatings(c.input.ratings_30_subjects_x_6_raters, [1, 2, 3, 4, 5]);
    const r = fleissKappa(counts);
    const byCategory = Object.values(r.byCategory) as number[];
    return {
      kappa: r.kappa,
      kappa_paper_3dp: r.kappa,
      kappa_j: byCategory,
      kappa_j_paper_3dp: byCategory,
      z: r.z,
      column_sums: [0, 1, 2, 3, 4].map((j) => counts.reduce((s, row) => s + row[j]!, 0)),
    };
  },
  krippendorff_alpha: (c) =>
    Object.fromEntries(
      (['nominal', 'ordinal', 'interval', 'ratio'] as AlphaLevel[]).map((level) => [level, krippendorffAlpha(c.input.reliability_data_observers_x_units, level).alpha]),
    ),
  wilson_score_interval: (c) => ({ ci: wilson(c.input.count, c.input.nobs, 1 - c.params.alpha).ci }),
  pearson_r: (c) => {
    const r = pearson(c.input.x, c.input.y);
    return { r: r.r, p_two_sided: r.p };
  },
};

describe('published reference cases (test/fixtures/stats_reference_cases.json)', () => {
  it('has a handler for every statistic in the file', () => {
    expect(cases.length).toBeGreaterThanOrEqual(8);
    for (const c of cases) expect(Object.keys(HANDLERS), c.name).toContain(c.statistic);
  });

  for (const c of cases) {
    it(`${c.name} (${c.statistic})`, () => {
      const computed = HANDLERS[c.statistic]!(c);
      for (const [key, expected] of Object.entries(c.expected)) {
        const tol = c.tolerance[key];
        expect(tol, `${c.name}: tolerance for ${key}`).toBeTypeOf('number');
        const got = computed[key];
        expect(got, `${c.name}: ${key} computed`).not.toBeNull();
        expect(got, `${c.name}: ${key} computed`).toBeDefined();
        const exp = Array.isArray(expected) ? expected : [expected];
        const act = Array.isArray(got) ? got : [got as number];
        expect(act).toHaveLength(exp.length);
        exp.forEach((e, i) => expect(Math.abs(act[i]! - e), `${c.name}: ${key}[${i}] = ${act[i]} vs ${e}`).toBeLessThanOrEqual(tol! + 1e-15));
      }
    });
  }
});

describe('case-specific checks from the notes', () => {
  const byName = (name: string) => cases.find((c) => c.name === name)!;

  it('Artstein & Poesio Table 1: exactly 8/23, symmetric in the raters (sklearn)', () => {
    const { y1, y2 } = byName('sklearn_artstein_poesio_table1_binary').input;
    expect(cohenKappa(y1, y2).kappa).toBeCloseTo(8 / 23, 14);
    expect(cohenKappa(y2, y1).kappa).toBeCloseTo(cohenKappa(y1, y2).kappa!, 14);
  });

  it('Artstein & Poesio Table 1: four extra items labelled 2 with labels=[0,1] leave kappa unchanged (sklearn)', () => {
    const { y1, y2 } = byName('sklearn_artstein_poesio_table1_binary').input;
    const base = cohenKappa(y1, y2);
    const extended = cohenKappa([...y1, 2, 2, 2, 2], [...y2, 2, 2, 2, 2], { categories: [0, 1] });
    expect(extended.kappa).toBe(base.kappa);
    expect(extended.n).toBe(100);
    expect(extended.excluded).toBe(4);
    // Without the list the extra category counts, and kappa moves.
    expect(cohenKappa([...y1, 2, 2, 2, 2], [...y2, 2, 2, 2, 2]).kappa).not.toBeCloseTo(base.kappa!, 3);
  });

  it('the case input tables agree with the label arrays', () => {
    for (const name of ['sklearn_artstein_poesio_table1_binary', 'sklearn_artstein_poesio_table4_multiclass', 'sklearn_weighting_none_linear_quadratic']) {
      const c = byName(name);
      expect(cohenKappa(c.input.y1, c.input.y2).categories).toEqual(c.input.labels);
    }
  });

  it('Fleiss 1971: the given counts per subject equal the counts built from the ratings', () => {
    const c = byName('fleiss1971_diagnoses');
    expect(countsFromRatings(c.input.ratings_30_subjects_x_6_raters, [1, 2, 3, 4, 5])).toEqual(c.input.counts_per_subject);
    expect(fleissKappa(c.input.counts_per_subject).kappa).toBeCloseTo(0.430244520060141, 12);
    const converted = libraryCounts(c.input.ratings_30_subjects_x_6_raters);
    expect(converted.categories).toEqual([1, 2, 3, 4, 5]);
    expect(converted.counts).toEqual(c.input.counts_per_subject);
    expect(() => libraryCounts([[1, null]])).toThrow(/subject 1, rater 2 is missing/);
  });

  it('Krippendorff 2011: nominal alpha is exactly 113/152, also with string labels; moving the lone value of unit 12 changes nothing (irrCAC copy)', () => {
    const data: (number | null)[][] = byName('krippendorff2011_4obs_12units').input.reliability_data_observers_x_units;
    expect(krippendorffAlpha(data, 'nominal').alpha).toBeCloseTo(113 / 152, 14);
    const strings = data.map((row) => row.map((v) => (v === null ? null : `v${v}`)));
    expect(krippendorffAlpha(strings, 'nominal').alpha).toBeCloseTo(113 / 152, 14);
    const moved = data.map((row) => [...row]);
    moved[2]![11] = moved[1]![11]!;
    moved[1]![11] = null;
    for (const level of ['nominal', 'ordinal', 'interval', 'ratio'] as const) {
      expect(krippendorffAlpha(moved, level).alpha).toBeCloseTo(krippendorffAlpha(data, level).alpha!, 14);
    }
    const r = krippendorffAlpha(data, 'nominal');
    expect([r.units, r.pairable, r.values]).toEqual([12, 11, 40]);
  });
});
