import { describe, expect, it } from 'vitest';
import { summarizeTangram } from '../../../src/scoring/tangram/batch.ts';
import { CLASSIC_SQUARE, type Point } from '../../../src/scoring/tangram/pieces.ts';
import { verifyTangram } from '../../../src/scoring/tangram/verify.ts';

/**
 * An answer whose seven pieces are all flat (collinear corners) or collapsed to a point covers no area:
 * the figure has no boundary. Its Hausdorff distance to the target's boundary is not 0 — 0 means the two
 * boundaries coincide — so it is not measured (null, named in problems), and a batch's meanHausdorff
 * leaves it out instead of averaging a perfect 0 into the model's mean.
 */
const SQUARE = { outline: [[0, 0], [1, 0], [1, 1], [0, 1]] as Point[] };
const TYPES = ['large_triangle', 'large_triangle', 'medium_triangle', 'small_triangle', 'small_triangle', 'square', 'parallelogram'];
const FLAT = JSON.stringify({
  pieces: TYPES.map((type, i) => ({ id: i, type, vertices: type === 'square' || type === 'parallelogram' ? [[0, 0], [0.1, 0], [0.2, 0], [0.3, 0]] : [[0, 0], [0.1, 0], [0.2, 0]] })),
});
const POINTS = JSON.stringify({
  pieces: TYPES.map((type, i) => ({ id: i, type, vertices: [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]] })),
});
// The classic square with its medium triangle moved to the left side: Hausdorff ½ to the square.
const HEXAGON = JSON.stringify({
  pieces: CLASSIC_SQUARE.map((p, i) => ({ id: i, ...p, ...(p.type === 'medium_triangle' ? { vertices: [[0, 1], [-0.5, 1], [0, 0.5]] } : {}) })),
});

describe('verifyTangram: pieces that cover no area', () => {
  it.each([
    ['flat pieces', FLAT],
    ['pieces collapsed to a point', POINTS],
  ])('%s: IoU 0, Hausdorff not measured (null), not 0', (_, text) => {
    const r = verifyTangram(SQUARE, text);
    expect(r.syntaxError).toBe(false);
    expect(r.rigidError).toBe(true);
    expect(r.iou).toBe(0);
    expect(r.hausdorff).toBeNull();
    expect(r.validPass).toBe(false);
    expect(r.problems).toContain('Hausdorff distance not measured: the pieces cover no area');
  });

  it('a batch averages Hausdorff over the answers that have a figure', () => {
    const rows = [HEXAGON, FLAT].map((text) => ({ model: 'm', result: verifyTangram(SQUARE, text) }));
    expect(rows[0]!.result.hausdorff).toBeCloseTo(0.5, 9);
    const s = summarizeTangram(rows).m!;
    expect(s.parsed).toBe(2);
    expect(s.meanIou).toBeCloseTo(7 / 9 / 2, 9);
    // ½ from the one answer with a figure, not (½ + 0) / 2
    expect(s.meanHausdorff).toBeCloseTo(0.5, 9);
  });
});

describe('summarizeTangram: means that could not be taken say why', () => {
  it('only figureless answers: meanIou 0, meanHausdorff null with a reason', () => {
    const s = summarizeTangram([{ model: 'm', result: verifyTangram(SQUARE, FLAT) }]).m!;
    expect(s.meanIou).toBe(0);
    expect(s.meanHausdorff).toBeNull();
    expect(s.reason).toBe('no Hausdorff distance measured: no answer of this model has pieces covering any area');
  });
});

describe('summarizeTangram: parsed answers that could not be measured', () => {
  it('a coordinate beyond ±1e6: meanIou null, and the reason does not call it a syntax error', () => {
    const far = JSON.stringify({ pieces: CLASSIC_SQUARE.map((p, i) => ({ id: i, type: p.type, vertices: p.vertices.map(([x, y]) => [x + 2e6, y]) })) });
    const result = verifyTangram(SQUARE, far);
    expect(result).toMatchObject({ syntaxError: false, iou: null, hausdorff: null, validPass: false });
    const s = summarizeTangram([{ model: 'm', result }]).m!;
    expect(s).toMatchObject({ parsed: 1, meanIou: null, meanHausdorff: null, syntaxErrorRate: 0 });
    expect(s.reason).toBe('no answer of this model could be measured (syntax errors, or overlap and silhouette not checked: see problems)');
  });
});
