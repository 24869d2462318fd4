import { describe, expect, it } from 'vitest';
import { dtsTask } from '../../src/services/report-tasks.ts';

/**
 * The stored describe-then-solve report's pairing (report-tasks.ts dtsTask, pure): each scored assembly
 * with its run's description of the same puzzle (the answer's own for describe-then-solve answers).
 * A description without a perception value (ungraded, a failed grade, unlabelled) is no description
 * to pair with: it must neither count as a wrong perception nor hide another graded description of the
 * same puzzle in the run.
 */

const base = { effort: null, tags: [], answerStatus: 'ok', outputTokens: null, truthOrientation: null, statedOrientation: null, orientationCorrect: null, pieceCountError: null };
const desc = (answerId: number, run: string, puzzleId: number, f1: number | null, gradeStatus: string | null) => ({
  ...base, answerId, externalId: `d${answerId}`, run, model: `model-${run}`, puzzleId, rubricId: 100 + puzzleId, sizeBucket: '~16', f1, gradeStatus,
});
const asm = (answerId: number, run: string, puzzleId: number, neighbour: number) => ({
  ...base, answerId, externalId: `a${answerId}`, run, model: `model-${run}`, puzzleId, puzzle: `p${puzzleId}`, puzzleRubricId: 100 + puzzleId, rows: 4, cols: 4,
  sizeBucket: '~16', scoreStatus: 'valid', direct: neighbour, neighbour, adjacency: neighbour, proximity: neighbour, exactMatch: neighbour === 1 ? 1 : 0,
});
const input = (d: unknown[], a: unknown[], labels: Array<[number, string, string]> = [], perception: 'f1' | 'label' = 'f1') => ({
  desc: JSON.stringify(d), asm: JSON.stringify(a), labels, perception, metric: 'neighbour' as const, perceptionThreshold: 0.5, answerThreshold: 0.5,
});

describe('describe-then-solve pairing', () => {
  it('a failed grade of the run’s first description of the puzzle does not hide its graded second one', () => {
    const r = dtsTask(input([desc(1, 'r1', 10, null, 'error'), desc(2, 'r1', 10, 0.8, 'ok')], [asm(3, 'r1', 10, 0.9)]));
    expect([r.paired, r.unpaired]).toEqual([1, 0]);
    expect(r.report!.overall.perception.successes).toBe(1);
    expect(r.report!.overall.answer.successes).toBe(1);
  });

  it('with perception by label: an unlabelled first description does not hide a labelled one', () => {
    const d = [desc(1, 'r1', 10, 0.9, 'ok'), desc(2, 'r1', 10, 0.9, 'ok')];
    const r = dtsTask(input(d, [asm(3, 'r1', 10, 0.9)], [[2, 'h1', 'fail'], [2, 'h2', 'fail']], 'label'));
    expect([r.paired, r.unpaired]).toEqual([1, 0]);
    expect(r.report!.overall.perception.successes).toBe(0);
  });

  it('a describe-then-solve answer whose own description failed to grade stays unpaired (never another answer’s description, never a 0)', () => {
    // Answer 5 is the describe-then-solve answer itself: a description row and an assembly row.
    const r = dtsTask(input([desc(4, 'r1', 11, 0.9, 'ok'), desc(5, 'r1', 11, null, 'error')], [asm(5, 'r1', 11, 0.9)]));
    expect([r.paired, r.unpaired]).toEqual([0, 1]);
    expect(r.report).toBeNull();
  });

  it('never pairs across runs (models)', () => {
    const r = dtsTask(input([desc(1, 'r2', 12, 0.9, 'ok')], [asm(2, 'r1', 12, 0.9)]));
    expect([r.paired, r.unpaired]).toEqual([0, 1]);
  });
});

describe('describe-then-solve pairing: one row per assembly', () => {
  it('run names and answer ids that spell the same path are two items, not a duplicate (no 400 on stored data)', () => {
    // Runs 'exp' and 'exp/v2' of one model: 'exp' + 'v2/g1' and 'exp/v2' + 'g1' once made the same item 'exp/v2/g1'.
    const d = [desc(1, 'exp', 10, 0.9, 'ok'), desc(2, 'exp/v2', 10, 0.9, 'ok')].map((x) => ({ ...x, model: 'm' }));
    const a = [
      { ...asm(3, 'exp', 10, 0.9), model: 'm', externalId: 'v2/g1' },
      { ...asm(4, 'exp/v2', 10, 0.2), model: 'm', externalId: 'g1' },
    ];
    const r = dtsTask(input(d, a));
    expect([r.paired, r.unpaired]).toEqual([2, 0]);
    expect([r.report!.overall.n, r.report!.overall.answer.successes]).toEqual([2, 1]);
  });
});

describe('describe-then-solve pairing: several candidate descriptions', () => {
  it('an assembly whose run has two graded descriptions of its puzzle is left out and counted as ambiguous, not paired with the first', () => {
    // d1 (F1 0.9) and d2 (F1 0.1) both describe puzzle 10 in r1: which one the assembly followed is unknown.
    // Before, it was paired with d1 (lower id) and counted as a right perception, with no word of d2.
    const d = [desc(1, 'r1', 10, 0.9, 'ok'), desc(2, 'r1', 10, 0.1, 'ok'), desc(4, 'r1', 11, 0.2, 'ok')];
    const r = dtsTask(input(d, [asm(3, 'r1', 10, 0.9), asm(5, 'r1', 11, 0.9)]));
    expect([r.paired, r.unpaired, r.ambiguous]).toEqual([1, 1, 1]);
    // Only answer 5 with d4: P✗ (0.2 < 0.5), A✓ (0.9).
    expect([r.report!.overall.n, r.report!.overall.perception.successes, r.report!.overall.answerGivenNoPerception.successes]).toEqual([1, 0, 1]);
  });

  it('several descriptions of the puzzle’s rubric (no description of the puzzle itself) are ambiguous too', () => {
    // Puzzles 20 and 21 share rubric 120; the assembly is of 21 and only 20 has descriptions (two).
    const d = [{ ...desc(1, 'r1', 20, 0.9, 'ok'), rubricId: 120 }, { ...desc(2, 'r1', 20, 0.1, 'ok'), rubricId: 120 }];
    const r = dtsTask(input(d, [{ ...asm(3, 'r1', 21, 0.9), puzzleRubricId: 120 }]));
    expect([r.paired, r.unpaired, r.ambiguous]).toEqual([0, 1, 1]);
    expect(r.report).toBeNull();
  });

  it('an ungraded second description is no candidate; a describe-then-solve answer’s own description is never ambiguous', () => {
    const d = [desc(1, 'r1', 10, 0.9, 'ok'), desc(2, 'r1', 10, null, null), desc(3, 'r1', 10, 0.1, 'ok')];
    // Answer 3 is a describe-then-solve answer (its own description decides); answer 4 an assembly with candidates 1 and 3.
    const r = dtsTask(input(d.slice(0, 2), [asm(4, 'r1', 10, 0.9)]));
    expect([r.paired, r.unpaired, r.ambiguous]).toEqual([1, 0, 0]);
    const own = dtsTask(input(d, [asm(3, 'r1', 10, 0.9), asm(4, 'r1', 10, 0.9)]));
    expect([own.paired, own.unpaired, own.ambiguous]).toEqual([1, 1, 1]);
    expect(own.report!.overall.perception.successes).toBe(0);
  });
});
