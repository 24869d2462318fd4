import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildUnits, compareJudges, type HumanItemLabel, type JudgeGrade } from '../../src/analysis/judge-compare/index.ts';
import { ITEM_VERDICTS } from '../../src/domain/verdicts.ts';

/**
 * The hand-checked case (answers x1–x3, items i1, i2; h = human majority):
 *   unit    h          A          B          flip
 *   x1 i1   correct    correct    correct    —
 *   x1 i2   missing    correct    missing    toward human   (humans: missing, missing, correct → missing)
 *   x2 i1   partial    partial    correct    away from human
 *   x2 i2   correct    correct    correct    —
 *   x3 i1   incorrect  incorrect  incorrect  —
 *   x3 i2   missing    incorrect  missing    toward human
 * Dropped: x4 i1 (humans tie correct/partial), x4 i2 (A's grade of x4 failed), x5 i1 (B never graded x5).
 *
 * Unweighted kappa over the four verdicts (n = 6):
 *   A: po = 4/6; A marginals c3 p1 i2 m0, human c2 p1 i1 m2 → pe = (3·2 + 1·1 + 2·1 + 0·2)/36 = 9/36
 *      κA = (2/3 − 1/4)/(3/4) = 5/9
 *   B: po = 5/6; B marginals c3 p0 i1 m2 → pe = (3·2 + 0 + 1·1 + 2·2)/36 = 11/36
 *      κB = (30/36 − 11/36)/(25/36) = 19/25;  κB − κA = 19/25 − 5/9 = 46/225
 * Linear weighted kappa over points (0, 0.5, 1; weight 1, 0.5, 0 for distance 0, 1, 2):
 *   A points 1 1 .5 1 0 0 vs human 1 0 .5 1 0 0: po_w = 5/6 (x1 i2 is distance 2);
 *     A levels (0,.5,1) = (2,1,3), human (3,1,2): pe_w = [2·3.5 + 1·3.5 + 3·2.5]/36 = 18/36 → κwA = (5/6 − 1/2)/(1/2) = 2/3
 *   B points 1 0 1 1 0 0: po_w = 5.5/6 = 11/12 (x2 i1 distance 1);
 *     B levels (3,0,3): pe_w = [3·3.5 + 0 + 3·2.5]/36 = 18/36 → κwB = (11/12 − 1/2)/(1/2) = 5/6;  difference 1/6
 * F1 moves (ok by both): x6 0.1→0.9 (+0.8, no human label), x1 0.5→0.75 (+0.25), x2 0.75→0.5 (−0.25), x3 0.4→0.5.
 */
const H = (answer: string, item: string, rater: string, label: string): HumanItemLabel => ({ answer, item, rater, label });
const humans: HumanItemLabel[] = [
  H('x1', 'i1', 'h1', 'correct'),
  H('x1', 'i2', 'h1', 'missing'),
  H('x1', 'i2', 'h2', 'missing'),
  H('x1', 'i2', 'h3', 'correct'),
  H('x2', 'i1', 'h1', 'partial'),
  H('x2', 'i2', 'h1', 'correct'),
  H('x3', 'i1', 'h1', 'incorrect'),
  H('x3', 'i2', 'h1', 'missing'),
  H('x4', 'i1', 'h1', 'correct'),
  H('x4', 'i1', 'h2', 'partial'),
  H('x4', 'i2', 'h1', 'correct'),
  H('x5', 'i1', 'h1', 'correct'),
];
const ok = (f1: number, i1: string, i2: string): JudgeGrade => ({ status: 'ok', f1, items: [{ id: 'i1', verdict: i1 }, { id: 'i2', verdict: i2 }] });
const gradesA = new Map<string, JudgeGrade>([
  ['x1', ok(0.5, 'correct', 'correct')],
  ['x2', ok(0.75, 'partial', 'correct')],
  ['x3', ok(0.4, 'incorrect', 'incorrect')],
  ['x4', { status: 'failed', f1: null, items: null }],
  ['x5', ok(0.3, 'correct', 'correct')],
  ['x6', ok(0.1, 'missing', 'missing')],
]);
const gradesB = new Map<string, JudgeGrade>([
  ['x1', ok(0.75, 'correct', 'missing')],
  ['x2', ok(0.5, 'correct', 'correct')],
  ['x3', ok(0.5, 'incorrect', 'missing')],
  ['x4', ok(0.2, 'correct', 'correct')],
  ['x6', ok(0.9, 'correct', 'correct')],
]);
const opts = { seed: 7, resamples: 500, top: 3 };
const labelled = new Set(humans.map((h) => h.answer));
const run = (a = gradesA, b = gradesB) => compareJudges({ a: 'old', b: 'new' }, buildUnits(humans, a, b), { a, b, humanLabelledAnswers: labelled }, opts);

describe('judge compare (hand-checked)', () => {
  const r = run();

  it('units and dropped pairs, each under its reason', () => {
    expect(r).toMatchObject({ units: 6, answers: 3, humanLabelledPairs: 9 });
    expect(r.dropped).toEqual({
      total: 3,
      byReason: [
        { reason: 'humanTie', count: 1, description: 'the human labels tie (no majority)' },
        { reason: 'aNotOk', count: 1, description: "judge A's grade of the answer is not ok" },
        { reason: 'bNotGraded', count: 1, description: 'judge B has no grade of the answer' },
      ],
    });
  });

  it('kappas of each judge against the humans and the difference B − A', () => {
    expect(r.a.agreement).toBeCloseTo(4 / 6, 12);
    expect(r.b.agreement).toBeCloseTo(5 / 6, 12);
    expect(r.a.kappa.kappa).toBeCloseTo(5 / 9, 12);
    expect(r.b.kappa.kappa).toBeCloseTo(19 / 25, 12);
    expect(r.a.weightedKappa.kappa).toBeCloseTo(2 / 3, 12);
    expect(r.b.weightedKappa.kappa).toBeCloseTo(5 / 6, 12);
    expect(r.difference.kappa.estimate).toBeCloseTo(46 / 225, 12);
    expect(r.difference.weightedKappa.estimate).toBeCloseTo(1 / 6, 12);
  });

  it('flips per item with their A→B transitions and direction', () => {
    expect(r.flips).toEqual({
      units: 6,
      flips: 3,
      towardHuman: 2,
      awayFromHuman: 1,
      neither: 0,
      items: [
        { rubric: null, item: 'i1', units: 3, flips: 1, towardHuman: 0, awayFromHuman: 1, neither: 0, transitions: [{ from: 'partial', to: 'correct', count: 1 }] },
        {
          rubric: null,
          item: 'i2',
          units: 3,
          flips: 2,
          towardHuman: 2,
          awayFromHuman: 0,
          neither: 0,
          transitions: [
            { from: 'correct', to: 'missing', count: 1 },
            { from: 'incorrect', to: 'missing', count: 1 },
          ],
        },
      ],
    });
  });

  it('answers whose F1 moved most: largest |Δ| first, ties by answer id, only ok by both', () => {
    expect(r.f1Moves.graded).toBe(4);
    expect(r.f1Moves.top).toEqual([
      { answer: 'x6', f1A: 0.1, f1B: 0.9, delta: 0.9 - 0.1, humanLabelled: false },
      { answer: 'x1', f1A: 0.5, f1B: 0.75, delta: 0.25, humanLabelled: true },
      { answer: 'x2', f1A: 0.75, f1B: 0.5, delta: -0.25, humanLabelled: true },
    ]);
  });

  it('the paired bootstrap is reproducible with its seed and its interval holds the point estimate', () => {
    const again = run();
    expect(again.difference).toEqual(r.difference);
    for (const d of [r.difference.kappa, r.difference.weightedKappa]) {
      expect(d.ci).not.toBeNull();
      expect(d.ci![0]).toBeLessThanOrEqual(d.estimate!);
      expect(d.ci![1]).toBeGreaterThanOrEqual(d.estimate!);
      expect(d.resamples).toBeGreaterThan(400);
    }
  });

  it('on four copies of the case: the same estimates, a narrower interval, and the seed matters', () => {
    const copy = <T extends { answer: string }>(xs: T[]) => [0, 1, 2, 3].flatMap((c) => xs.map((x) => ({ ...x, answer: `${x.answer}-${c}` })));
    const copyMap = (m: Map<string, JudgeGrade>) => new Map([0, 1, 2, 3].flatMap((c) => [...m].map(([k, v]) => [`${k}-${c}`, v] as const)));
    const hs = copy(humans);
    const [a, b] = [copyMap(gradesA), copyMap(gradesB)];
    const big = (seed: number) => compareJudges({ a: 'old', b: 'new' }, buildUnits(hs, a, b), { a, b, humanLabelledAnswers: new Set(hs.map((h) => h.answer)) }, { ...opts, seed });
    const r7 = big(7);
    expect(r7.units).toBe(24);
    expect(r7.difference.kappa.estimate).toBeCloseTo(46 / 225, 12);
    const [lo, hi] = r7.difference.kappa.ci!;
    expect(lo).toBeLessThanOrEqual(46 / 225);
    expect(hi).toBeGreaterThanOrEqual(46 / 225);
    expect(hi - lo).toBeLessThan(r.difference.kappa.ci![1] - r.difference.kappa.ci![0]);
    expect(big(8).difference.kappa.ci).not.toEqual(r7.difference.kappa.ci);
  });
});

describe('judge compare (properties)', () => {
  const verdict = fc.constantFrom(...ITEM_VERDICTS);
  const answerCase = fc.record({ items: fc.array(fc.tuple(verdict, verdict), { minLength: 1, maxLength: 4 }), f1: fc.double({ min: 0, max: 1, noNaN: true }) });

  it('a judge compared with itself: difference 0 (every resample), no flips, no F1 moves', () => {
    fc.assert(
      fc.property(fc.array(answerCase, { minLength: 1, maxLength: 8 }), fc.nat(1000), (answers, seed) => {
        const hs: HumanItemLabel[] = [];
        const grades = new Map<string, JudgeGrade>();
        answers.forEach((a, i) => {
          grades.set(`a${i}`, { status: 'ok', f1: a.f1, items: a.items.map(([j], k) => ({ id: `i${k}`, verdict: j })) });
          a.items.forEach(([, h], k) => hs.push({ answer: `a${i}`, item: `i${k}`, rater: 'h', label: h }));
        });
        const set = buildUnits(hs, grades, grades);
        const r = compareJudges({ a: 'j', b: 'j' }, set, { a: grades, b: grades, humanLabelledAnswers: new Set(grades.keys()) }, { seed, resamples: 50, top: 5 });
        expect(r.flips.flips).toBe(0);
        expect(r.flips.items.every((i) => i.flips === 0 && i.transitions.length === 0)).toBe(true);
        expect(r.a.kappa).toEqual(r.b.kappa);
        for (const d of [r.difference.kappa, r.difference.weightedKappa]) {
          if (d.estimate === null) continue;
          expect(d.estimate).toBe(0);
          if (d.ci) expect(d.ci).toEqual([0, 0]);
        }
        expect(r.f1Moves.top.every((m) => m.delta === 0)).toBe(true);
      }),
    );
  });
});
