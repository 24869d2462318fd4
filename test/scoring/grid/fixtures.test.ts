import { describe, expect, it } from 'vitest';
import { scoreGrid } from '../../../src/scoring/grid/index.ts';
import { fixture, truthFixture } from './helpers.ts';

/**
 * The shared examples, with every value computed by hand (6×9: R=6, C=9, n=54, |H|=6·8=48,
 * |V|=9·5=45, m=93, E=[81·210+36·720]/(3·54·53)=42930/8586=5; 36 border cells: 4 corners, 22 edges,
 * 28 interior). The random answer's values were counted with an independent script.
 */
describe('grid fixtures', () => {
  const t69 = truthFixture('grid-truth-6x9.json');

  it('perfect (fenced, with prose around it) scores 1 everywhere', () => {
    expect(scoreGrid(t69, fixture('grid-answer-perfect.txt'))).toEqual({
      status: 'valid',
      problems: [],
      direct: 1,
      exactMatch: 1,
      neighbour: 1,
      adjacency: 1,
      proximity: 1,
      shapeCompatibility: 1,
      byPosition: { corner: 1, edge: 1, interior: 1 },
    });
  });

  it('shifted one column (rows rotated left): direct 0, neighbour keeps 87 of 93 pairs', () => {
    // Every piece moved; per row the pair (col 0, col 1) is broken (col 0 wrapped to the far right):
    // 6 of 48 H pairs lost, all 45 V pairs kept. The broken pairs sit 8 columns apart.
    const s = scoreGrid(t69, fixture('grid-answer-shifted.txt'));
    expect(s.status).toBe('valid');
    expect(s.direct).toBe(0);
    expect(s.exactMatch).toBe(0);
    expect(s.neighbour).toBeCloseTo(87 / 93, 12);
    expect(s.adjacency).toBeCloseTo(87 / 93, 12);
    // d̄ = (87·1 + 6·8)/93 = 135/93; (5 − 135/93)/4 = 330/372
    expect(s.proximity).toBeCloseTo(330 / 372, 12);
    // Kept pairs are true neighbours (fit); the 6 new edges put a right-border piece's flat side
    // against a left-border piece.
    expect(s.shapeCompatibility).toBeCloseTo(87 / 93, 12);
    expect(s.byPosition).toEqual({ corner: 0, edge: 0, interior: 0 });
  });

  it('random (JSON 2-D array) scores near chance', () => {
    const s = scoreGrid(t69, fixture('grid-answer-random.json'));
    expect(s.status).toBe('valid');
    expect(s.direct).toBeCloseTo(1 / 54, 12); // only '357' at (5,1), an edge cell
    expect(s.neighbour).toBe(0);
    expect(s.adjacency).toBeCloseTo(7 / 93, 12);
    // Σd = 450: d̄ = 450/93, (5 − 450/93)/4 = 15/372 = 5/124
    expect(s.proximity).toBeCloseTo(5 / 124, 12);
    expect(s.shapeCompatibility).toBeCloseTo(38 / 93, 12);
    expect(s.byPosition.corner).toBe(0);
    expect(s.byPosition.edge).toBeCloseTo(1 / 22, 12);
    expect(s.byPosition.interior).toBe(0);
  });

  it('duplicates + unknown id: repaired, problems reported, both cells blank', () => {
    // '258' repeated at (2,3) where '614' belongs; '000' (unknown) at (4,4) where '798' belongs.
    const s = scoreGrid(t69, fixture('grid-answer-duplicates.txt'));
    expect(s.status).toBe('repaired');
    expect(s.problems).toEqual([
      "duplicate id '258' at (2,3) (first at (0,0)): cell left blank",
      "unknown id '000' at (4,4): cell left blank",
      "2 pieces not placed: '614', '798'",
    ]);
    expect(s.direct).toBeCloseTo(52 / 54, 12);
    expect(s.exactMatch).toBe(0);
    // 614 and 798 are interior, not adjacent to each other: 4 + 4 pairs lost.
    expect(s.neighbour).toBeCloseTo(85 / 93, 12);
    expect(s.adjacency).toBeCloseTo(85 / 93, 12);
    // The 8 pairs with an unplaced piece count as E = 5: d̄ = (85 + 40)/93, (5 − 125/93)/4 = 340/372
    expect(s.proximity).toBeCloseTo(340 / 372, 12);
    // 93 − 8 edges touch a blank cell; the other 85 are true neighbours, all fit.
    expect(s.shapeCompatibility).toBe(1);
    expect(s.byPosition.corner).toBe(1);
    expect(s.byPosition.edge).toBe(1);
    expect(s.byPosition.interior).toBeCloseTo(26 / 28, 12);
  });

  it('wrong shape (5 rows of 9): invalid, every metric 0', () => {
    const s = scoreGrid(t69, fixture('grid-answer-wrong-shape.txt'));
    expect(s).toEqual({
      status: 'invalid',
      problems: ['wrong shape: the last grid-like block has 5 lines (of 9, 9, 9, 9, 9 ids), expected 6 lines of 9 ids'],
      direct: 0,
      exactMatch: 0,
      neighbour: 0,
      adjacency: 0,
      proximity: 0,
      shapeCompatibility: 0,
      byPosition: { corner: 0, edge: 0, interior: 0 },
    });
  });

  it('4×4 mapping answer: two corners swapped', () => {
    // '14' (true (0,0)) and '6' (true (3,3)) are swapped; the 4 pairs touching them end 5 apart.
    // E(4×4) = 1920/720 = 8/3; d̄ = (20 + 4·5)/24 = 5/3; proximity = (8/3 − 5/3)/(5/3) = 0.6
    const t44 = truthFixture('grid-truth-4x4.json');
    const s = scoreGrid(t44, fixture('grid-answer-4x4-mapping.json'));
    expect(s.status).toBe('valid');
    expect(s.direct).toBe(14 / 16);
    expect(s.neighbour).toBeCloseTo(20 / 24, 12);
    expect(s.adjacency).toBeCloseTo(20 / 24, 12);
    expect(s.proximity).toBeCloseTo(0.6, 12);
    expect(s.shapeCompatibility).toBeNull();
    expect(s.byPosition).toEqual({ corner: 0.5, edge: 1, interior: 1 });
  });

  it('clue mode excludes given pieces from direct and byPosition', () => {
    const dup = scoreGrid(t69, fixture('grid-answer-duplicates.txt'), { given: ['614'] });
    expect(dup.direct).toBeCloseTo(52 / 53, 12);
    expect(dup.byPosition.interior).toBeCloseTo(26 / 27, 12);
    expect(dup.neighbour).toBeCloseTo(85 / 93, 12); // pair metrics are unchanged
    const t44 = truthFixture('grid-truth-4x4.json');
    const map = scoreGrid(t44, fixture('grid-answer-4x4-mapping.json'), { given: ['14'] });
    expect(map.direct).toBeCloseTo(14 / 15, 12);
    expect(map.byPosition.corner).toBeCloseTo(2 / 3, 12);
    const perfect = scoreGrid(t69, fixture('grid-answer-perfect.txt'), { given: ['258', '112'] });
    expect(perfect.direct).toBe(1);
    expect(perfect.exactMatch).toBe(1);
  });
});
