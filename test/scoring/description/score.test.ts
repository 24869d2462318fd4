import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Rubric } from '../../../src/domain/rubric.ts';
import { ITEM_VERDICTS, type Verdicts } from '../../../src/domain/verdicts.ts';
import { parseRubric, parseVerdicts } from '../../../src/scoring/description/rubric.ts';
import { scoreDescription } from '../../../src/scoring/description/score.ts';
import { FIXTURES } from '../../helpers/cli.ts';
import { badInputMessage } from '../../helpers/errors.ts';

const rubric = parseRubric(parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')), 'farmyard.rubric.yaml');
const verdicts = parseVerdicts(JSON.parse(readFileSync(`${FIXTURES}farmyard.verdicts.json`, 'utf8')), 'farmyard.verdicts.json');
const answer = readFileSync(`${FIXTURES}farmyard.answer.txt`, 'utf8');

const tiny = (weights: number[]): Rubric => ({
  id: 'tiny',
  title: 'Tiny',
  reference: 'r',
  items: weights.map((weight, i) => ({ id: `i${i}`, text: `item ${i}`, weight })),
});

describe('scoreDescription on the farmyard example', () => {
  const s = scoreDescription(rubric, verdicts, { answer });

  it('completeness = 12.5 / 21.5 (five unlisted items count as missing)', () => {
    expect(s.points).toEqual({ earned: 12.5, possible: 21.5 });
    expect(s.completeness).toBe(12.5 / 21.5);
    expect(s.completeness).toBeCloseTo(0.5814, 4);
    expect(s.items.filter((it) => it.verdict === 'missing').map((it) => it.id)).toEqual([
      'cow-in-barn',
      'rooster-on-cow',
      'calves',
      'cattle-count',
      'chickens',
    ]);
  });

  it('correctness = 11 / 14 counting the unverifiable claim, 11 / 13 excluding it', () => {
    expect(s.claims).toEqual({ true: 11, false: 2, unverifiable: 1, total: 14 });
    expect(s.correctness).toBe(11 / 14);
    expect(s.correctness).toBeCloseTo(0.7857, 4);
    const ex = scoreDescription(rubric, verdicts, { unverifiable: 'exclude' });
    expect(ex.correctness).toBe(11 / 13);
    expect(ex.correctness).toBeCloseTo(0.8462, 4);
    expect(ex.completeness).toBe(12.5 / 21.5);
  });

  it('f1 = 0.6683, the harmonic mean of the two', () => {
    const c = 12.5 / 21.5;
    const r = 11 / 14;
    expect(s.f1).toBeCloseTo((2 * c * r) / (c + r), 12);
    expect(s.f1).toBeCloseTo(0.6683, 4);
  });

  it('states orientation, grid and piece count, all correct', () => {
    expect(s.meta).toEqual({
      orientation: { stated: 'landscape', correct: true },
      grid: { stated: { rows: 6, cols: 9 }, correct: true, transposed: false },
      pieceCount: { stated: 54, error: 0 },
    });
  });

  it('leaves meta out without an answer, or when the rubric has no truth', () => {
    expect(scoreDescription(rubric, verdicts).meta).toBeUndefined();
    const { truth: _t, ...noTruth } = rubric;
    expect(scoreDescription(noTruth, verdicts, { answer }).meta).toBeUndefined();
  });

  it('weights points per item: a partial 2-weight item earns 1', () => {
    expect(s.items.find((it) => it.id === 'pond')).toEqual({ id: 'pond', weight: 2, verdict: 'partial', points: 1 });
    expect(s.items.find((it) => it.id === 'tractor-green')).toEqual({ id: 'tractor-green', weight: 1, verdict: 'incorrect', points: 0 });
  });
});

describe('scoreDescription, hand-computed', () => {
  it('weights 3,1 with correct, partial → (3 + 0.5) / 4', () => {
    const v: Verdicts = {
      items: [
        { id: 'i0', verdict: 'correct' },
        { id: 'i1', verdict: 'partial' },
      ],
      claims: [{ verdict: 'true' }, { verdict: 'true' }, { verdict: 'false' }, { verdict: 'unverifiable' }],
    };
    const s = scoreDescription(tiny([3, 1]), v);
    expect(s.completeness).toBe(0.875);
    expect(s.correctness).toBe(0.5);
    expect(s.f1).toBeCloseTo((2 * 0.875 * 0.5) / 1.375, 12);
    expect(scoreDescription(tiny([3, 1]), v, { unverifiable: 'exclude' }).correctness).toBe(2 / 3);
  });

  it('no claims → correctness 0 and f1 0', () => {
    const s = scoreDescription(tiny([1]), { items: [{ id: 'i0', verdict: 'correct' }], claims: [] });
    expect(s).toMatchObject({ completeness: 1, correctness: 0, f1: 0 });
  });

  it('only unverifiable claims under exclude → correctness 0 (zero denominator)', () => {
    const v: Verdicts = { items: [], claims: [{ verdict: 'unverifiable' }] };
    expect(scoreDescription(tiny([1]), v, { unverifiable: 'exclude' }).correctness).toBe(0);
    expect(scoreDescription(tiny([1]), v).correctness).toBe(0);
  });

  it('nothing listed → every item missing, completeness 0, f1 0 even with true claims', () => {
    const s = scoreDescription(tiny([1, 2]), { items: [], claims: [{ verdict: 'true' }] });
    expect(s).toMatchObject({ completeness: 0, correctness: 1, f1: 0 });
  });

  it('an incorrect verdict earns nothing, like missing', () => {
    const s = scoreDescription(tiny([1, 1]), { items: [{ id: 'i0', verdict: 'incorrect' }, { id: 'i1', verdict: 'correct' }], claims: [] });
    expect(s.completeness).toBe(0.5);
  });
});

describe('scoreDescription input checks', () => {
  it('names an unknown rubric item', () => {
    const msg = badInputMessage(() =>
      scoreDescription(rubric, { items: [{ id: 'barn', verdict: 'correct' }, { id: 'winmill', verdict: 'correct' }], claims: [] }, { where: 'v.json' }),
    );
    expect(msg).toMatch(/^v\.json: items\[1\]: unknown rubric item 'winmill'/);
  });

  it('names an item judged twice', () => {
    const msg = badInputMessage(() =>
      scoreDescription(rubric, { items: [{ id: 'barn', verdict: 'correct' }, { id: 'barn', verdict: 'partial' }], claims: [] }),
    );
    expect(msg).toBe("verdicts: items[1]: rubric item 'barn' has more than one verdict");
  });

  it('parseRubric reports the path and zod message of the first problem', () => {
    const raw = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as { items: Array<{ weight: number }> };
    raw.items[3]!.weight = -2;
    expect(badInputMessage(() => parseRubric(raw, 'r.yaml'))).toMatch(/^r\.yaml: items\[3\]\.weight: .*>0/);
    expect(badInputMessage(() => parseRubric({ ...raw, items: [] }, 'r.yaml'))).toMatch(/^r\.yaml: items: /);
    expect(badInputMessage(() => parseRubric('text', 'r.yaml'))).toMatch(/^r\.yaml: .*expected object/);
  });

  it('parseVerdicts names a bad verdict word', () => {
    expect(badInputMessage(() => parseVerdicts({ items: [{ id: 'a', verdict: 'yes' }] }, 'v.json'))).toMatch(/^v\.json: items\[0\]\.verdict: /);
  });
});

describe('scoreDescription properties', () => {
  const rubricAndVerdicts = fc
    .array(fc.double({ min: 0.01, max: 100, noNaN: true }), { minLength: 1, maxLength: 12 })
    .chain((weights) =>
      fc.record({
        weights: fc.constant(weights),
        verdicts: fc.array(fc.option(fc.constantFrom(...ITEM_VERDICTS)), { minLength: weights.length, maxLength: weights.length }),
        claims: fc.array(fc.constantFrom('true' as const, 'false' as const, 'unverifiable' as const), { maxLength: 20 }),
      }),
    );

  it('completeness, correctness and f1 stay in [0, 1], f1 between min and max of the two', () => {
    fc.assert(
      fc.property(rubricAndVerdicts, fc.constantFrom('count' as const, 'exclude' as const), ({ weights, verdicts: vs, claims }, policy) => {
        const v: Verdicts = {
          items: vs.flatMap((verdict, i) => (verdict ? [{ id: `i${i}`, verdict }] : [])),
          claims: claims.map((verdict) => ({ verdict })),
        };
        const s = scoreDescription(tiny(weights), v, { unverifiable: policy });
        for (const x of [s.completeness, s.correctness, s.f1]) {
          expect(x).toBeGreaterThanOrEqual(0);
          expect(x).toBeLessThanOrEqual(1 + 1e-12);
        }
        expect(s.f1).toBeLessThanOrEqual(Math.max(s.completeness, s.correctness) + 1e-12);
        expect(s.f1).toBeGreaterThanOrEqual(Math.min(s.completeness, s.correctness) - 1e-12);
      }),
    );
  });

  it('all items correct and all claims true → 1, 1, 1', () => {
    fc.assert(
      fc.property(rubricAndVerdicts, ({ weights }) => {
        const v: Verdicts = {
          items: weights.map((_, i) => ({ id: `i${i}`, verdict: 'correct' as const })),
          claims: [{ verdict: 'true' }],
        };
        const s = scoreDescription(tiny(weights), v);
        expect(s.completeness).toBeCloseTo(1, 12);
        expect(s.correctness).toBe(1);
        expect(s.f1).toBeCloseTo(1, 12);
      }),
    );
  });

  it('upgrading one verdict never lowers completeness', () => {
    const order = ['missing', 'partial', 'correct'] as const;
    fc.assert(
      fc.property(rubricAndVerdicts, fc.nat(), ({ weights, verdicts: vs }, k) => {
        const i = k % weights.length;
        const base = vs.map((v) => (v === 'incorrect' || v === null ? 'missing' : v));
        const up = [...base];
        up[i] = order[Math.min(order.indexOf(base[i]!) + 1, 2)]!;
        const mk = (arr: typeof base): Verdicts => ({ items: arr.map((verdict, j) => ({ id: `i${j}`, verdict })), claims: [] });
        expect(scoreDescription(tiny(weights), mk(up)).completeness).toBeGreaterThanOrEqual(
          scoreDescription(tiny(weights), mk(base)).completeness - 1e-12,
        );
      }),
    );
  });
});
