import { describe, expect, it } from 'vitest';
import { parseRatingsJsonl, summarizeRatings, type RatingRow } from '../../src/analysis/ratings.ts';
import { isAssayError } from '../../src/domain/errors.ts';
import { FIXTURES, runCli } from '../helpers/cli.ts';

const rowsFrom = (criterion: string, matrix: (number | null)[][], model = 'm'): RatingRow[] =>
  // matrix: raters × items, null = not rated
  matrix.flatMap((ratings, r) =>
    ratings.flatMap((rating, i) => (rating === null ? [] : [{ model, item: `i${i + 1}`, criterion, rater: `r${r + 1}`, rating }])),
  );
const transpose = (m: number[][]) => m[0]!.map((_, j) => m.map((row) => row[j]!));

describe('summarizeRatings', () => {
  it('mean ± sample SD per model and criterion (hand-computed)', () => {
    const rows = [
      ...rowsFrom('match', [[5, 4], [4, 4]], 'a'), // 5,4,4,4: mean 4.25, SD √(0.75/3) = 0.5
      ...rowsFrom('match', [[1, 3], [2, 2]], 'b'), // 1,3,2,2: mean 2, SD √(2/3)
      ...rowsFrom('plausibility', [[3]], 'a'), // one rating: no SD
    ];
    const { summaries } = summarizeRatings(rows);
    expect(summaries).toEqual([
      { model: 'a', criterion: 'match', n: 4, items: 2, raters: 2, mean: 4.25, sd: 0.5 },
      { model: 'a', criterion: 'plausibility', n: 1, items: 1, raters: 1, mean: 3, sd: null, reason: 'one rating: no sample SD' },
      { model: 'b', criterion: 'match', n: 4, items: 2, raters: 2, mean: 2, sd: expect.closeTo(Math.sqrt(2 / 3), 14) },
    ]);
  });

  it('ICC across experts matches Shrout & Fleiss (1979), Table 2: 6 targets × 4 judges', () => {
    // Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater reliability.
    // Psychological Bulletin 86(2), 420–428. Published: ICC(1,1) .17, (2,1) .29, (3,1) .71, (1,4) .44, (2,4) .62, (3,4) .91.
    const targetsByJudges = [
      [9, 2, 5, 8],
      [6, 1, 3, 2],
      [8, 4, 6, 8],
      [7, 1, 2, 6],
      [10, 5, 6, 9],
      [6, 2, 4, 7],
    ];
    const [a] = summarizeRatings(rowsFrom('match', transpose(targetsByJudges))).agreement;
    expect(a!.raters).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(a!.units).toBe(6);
    expect(a!.completeUnits).toBe(6);
    const icc = a!.icc!;
    expect([icc.ICC1.value, icc.ICC2.value, icc.ICC3.value, icc.ICC1k.value, icc.ICC2k.value, icc.ICC3k.value].map((v) => Number(v!.toFixed(2)))).toEqual([
      0.17, 0.29, 0.71, 0.44, 0.62, 0.91,
    ]);
  });

  it('Krippendorff alpha across experts, missing ratings allowed: Krippendorff (2011) reliability data', () => {
    // Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability, example C: 4 observers × 12 units.
    // Published: ordinal .815, interval .849 (full precision 0.8491071 from SimplyAgree / irrCAC).
    const data = [
      [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
      [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
    ];
    const [a] = summarizeRatings(rowsFrom('closeness', data)).agreement;
    expect(a!.alpha.ordinal.alpha).toBeCloseTo(0.815, 3);
    expect(a!.alpha.interval.alpha).toBeCloseTo(0.8491071, 7);
    // unit 12 has one value: 11 pairable units; only units 2–9 are rated by all four (ICC uses those 8)
    expect(a!.alpha.interval.pairable).toBe(11);
    expect(a!.completeUnits).toBe(8);
    expect(a!.icc!.subjects).toBe(8);
  });

  it('units are answers: the same item id under two models is two units', () => {
    const rows = [...rowsFrom('match', [[1, 2], [1, 2]], 'a'), ...rowsFrom('match', [[3, 4], [3, 5]], 'b')];
    const [a] = summarizeRatings(rows).agreement;
    expect(a!.units).toBe(4);
    expect(a!.icc!.subjects).toBe(4);
  });

  it('says why ICC is missing instead of giving NaN', () => {
    const one = summarizeRatings(rowsFrom('match', [[1, 2, 3]])).agreement[0]!;
    expect(one.icc).toBeNull();
    expect(one.iccReason).toBe('one rater: nothing to agree with');
    const sparse = summarizeRatings(rowsFrom('match', [[1, null, 3], [null, 2, 3]])).agreement[0]!;
    expect(sparse.iccReason).toBe('1 answer(s) rated by all 2 raters; ICC needs at least 2');
    expect(sparse.alpha.interval.alpha).not.toBeNaN();
  });

  it('a rater rating the same answer twice on one criterion is bad input', () => {
    const rows = rowsFrom('match', [[1, 2]]);
    try {
      summarizeRatings([...rows, rows[0]!]);
      expect.unreachable();
    } catch (e) {
      expect(isAssayError(e) && e.message).toBe('ratings: r1 rated m/i1 on match twice');
    }
  });
});

describe('parseRatingsJsonl', () => {
  it('reads rows and names the line of a bad one', () => {
    expect(parseRatingsJsonl('{"model":"a","item":1,"criterion":"match","rater":"x","rating":4}\n\n', 'R.jsonl')).toEqual([
      { model: 'a', item: '1', criterion: 'match', rater: 'x', rating: 4 },
    ]);
    expect(() => parseRatingsJsonl('{"model":"a","item":1,"criterion":"match","rater":"x","rating":"4"}', 'R.jsonl')).toThrow(
      'R.jsonl: line 1: "rating" must be a number, got "4"',
    );
    expect(() => parseRatingsJsonl('{"model":"a","item":1,"criterion":"match","rating":4}', 'R.jsonl')).toThrow('R.jsonl: line 1: "rater" must be a non-empty string');
  });
});

describe('assay analyze ratings', () => {
  it('summarises the expert-ratings fixture', () => {
    const r = runCli(['analyze', 'ratings', '--input', `${FIXTURES}tangram/ratings.jsonl`, '--json']);
    expect(r.code).toBe(0);
    const report = r.json();
    // alpha × silhouette: six 5s and six 4s → mean 4.5, SD √(12·0.25/11)
    expect(report.summaries.find((s: { model: string; criterion: string }) => s.model === 'alpha' && s.criterion === 'silhouette')).toEqual({
      model: 'alpha',
      criterion: 'silhouette',
      n: 12,
      items: 4,
      raters: 3,
      mean: 4.5,
      sd: expect.closeTo(Math.sqrt(3 / 11), 12),
    });
    const closeness = report.agreement.find((a: { criterion: string }) => a.criterion === 'closeness');
    expect(closeness).toMatchObject({ raters: ['ann', 'bo', 'cy'], units: 12, completeUnits: 11 });
    expect(closeness.icc.subjects).toBe(11);
    expect(Object.keys(closeness.icc)).toEqual(expect.arrayContaining(['ICC1', 'ICC2', 'ICC3', 'ICC1k', 'ICC2k', 'ICC3k']));
  });

  it('readable output, and bad input exits 2 with one line', () => {
    const ok = runCli(['analyze', 'ratings', '--input', `${FIXTURES}tangram/ratings.jsonl`]);
    expect(ok.stdout).toMatch(/^alpha\s+silhouette\s+12\s+4\.50 ± 0\.52$/m);
    const bad = runCli(['analyze', 'ratings', '--input', `${FIXTURES}tangram/answers.jsonl`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('line 1: "rating" must be a number, got undefined');
  });
});
