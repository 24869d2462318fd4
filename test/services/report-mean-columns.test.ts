import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { meanColumns, meanColumnsMany } from '../../src/services/report-stats.ts';
import { bootstrapCI } from '../../src/stats/bootstrap.ts';

/** The reports' mean columns, batched, against one bootstrapCI per list (what they were computed with before). */

const mean = (xs: readonly number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
function reference(name: string, values: readonly number[], seed: number, resamples: number): Record<string, number | null> {
  if (values.length === 0) return { [name]: null, [`${name}Low`]: null, [`${name}High`]: null };
  const b = bootstrapCI(values, mean, { seed, resamples });
  return { [name]: b.estimate, [`${name}Low`]: b.ci?.[0] ?? null, [`${name}High`]: b.ci?.[1] ?? null };
}

const score = fc.oneof(fc.double({ min: -1, max: 1, noNaN: true }), fc.constantFrom(0, 1, 0.5));
const spec = fc.tuple(fc.constantFrom('f1', 'neighbour', 'direct', 'proximity'), fc.oneof(fc.array(score, { maxLength: 30 }), fc.array(score, { minLength: 5, maxLength: 5 })));

describe('meanColumnsMany', () => {
  it('equals meanColumns list by list, and the reference bootstrap, to the last bit', () => {
    fc.assert(
      fc.property(fc.array(spec, { maxLength: 10 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 80 }), (specs, seed, resamples) => {
        const opts = { seed, resamples };
        const want = specs.map(([n, v]) => reference(n, v, seed, resamples));
        expect(meanColumnsMany(specs, opts)).toStrictEqual(want);
        expect(specs.map(([n, v]) => meanColumns(n, v, opts))).toStrictEqual(want);
      }),
      { numRuns: 200 },
    );
  });

  it('remembers intervals by list content only: the same list again, a changed list, more lists than it keeps', () => {
    const opts = { seed: 4, resamples: 30 };
    const a = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
    const b = [...a.slice(0, 5), 0.61];
    const many = Array.from({ length: 5000 }, (_, i) => ['f1', [i / 5000, 1 - i / 5000]] as const);
    const got = meanColumnsMany([['f1', a], ['f1', b], ...many, ['f1', a], ['f1', [0, -0, 1]], ['f1', [0, 0, 1]]], opts);
    const want = [reference('f1', a, 4, 30), reference('f1', b, 4, 30), ...many.map(([n, v]) => reference(n, v, 4, 30)), reference('f1', a, 4, 30), reference('f1', [0, -0, 1], 4, 30), reference('f1', [0, 0, 1], 4, 30)];
    expect(got).toStrictEqual(want);
    expect(got[1]).not.toStrictEqual(got[0]);
    // Asked again, partly remembered, partly dropped (5000 lists is more than it keeps): the same numbers.
    expect(meanColumnsMany([['f1', b], ...many.slice(0, 50), ['neighbour', a]], opts)).toStrictEqual([want[1], ...want.slice(2, 52), reference('neighbour', a, 4, 30)]);
    // Another seed or resample count is another interval.
    expect(meanColumnsMany([['f1', a]], { seed: 5, resamples: 30 })).toStrictEqual([reference('f1', a, 5, 30)]);
    expect(meanColumnsMany([['f1', a]], { seed: 4, resamples: 31 })).toStrictEqual([reference('f1', a, 4, 31)]);
  });

  it('uses seed 1 and 1000 resamples by default, and gives nulls for an empty list without checking options', () => {
    const xs = [0.2, 0.4, 0.9, 0.1, 0.7];
    expect(meanColumnsMany([['f1', xs]], {})).toStrictEqual([reference('f1', xs, 1, 1000)]);
    expect(meanColumnsMany([['f1', []]], { resamples: 0 })).toStrictEqual([{ f1: null, f1Low: null, f1High: null }]);
  });
});
