import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseGridTruth } from '../../src/domain/grid.ts';
import { scoreGrid } from '../../src/scoring/grid/index.ts';
import { assemblyPicture } from '../../src/web/assembly-svg.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const truth6x9 = parseGridTruth(JSON.parse(fixture('grid-truth-6x9.json')), 'grid-truth-6x9.json');
const truth4x4 = parseGridTruth(JSON.parse(fixture('grid-truth-4x4.json')), 'grid-truth-4x4.json');
const count = (svg: string, re: RegExp) => svg.match(re)?.length ?? 0;

describe('assemblyPicture', () => {
  it('shifted 6×9 answer (every row rotated left by one): nothing in place, 42 of 48 horizontal and 45 of 45 vertical pairs kept', () => {
    const p = assemblyPicture(truth6x9, fixture('grid-answer-shifted.txt'));
    expect(p.status).toBe('valid');
    expect(p.inPlace).toEqual([]);
    expect(p.pairsHorizontal).toBe(48);
    expect(p.pairsVertical).toBe(45);
    expect(p.keptHorizontal).toHaveLength(42);
    expect(p.keptVertical).toHaveLength(45);
    // The pairs broken are exactly (first, second) of each true row, now split across the wrap.
    const broken = truth6x9.layout.map((row) => `${row[0]}-${row[1]}`);
    expect(p.keptHorizontal.map(([a, b]) => `${a}-${b}`)).not.toEqual(expect.arrayContaining([broken[0]]));
    expect(p.keptHorizontal.some(([a, b]) => a === '258' && b === '300')).toBe(false);
    expect(p.keptHorizontal.some(([a, b]) => a === '300' && b === '751')).toBe(true);
    // Same count as the neighbour metric: 87 / 93.
    expect((p.keptHorizontal.length + p.keptVertical.length) / 93).toBeCloseTo(scoreGrid(truth6x9, fixture('grid-answer-shifted.txt')).neighbour!, 12);
    expect(count(p.svg, /class="piece in-place"/g)).toBe(0);
    expect(count(p.svg, /class="piece"/g)).toBe(54);
    expect(count(p.svg, /<line class="kept"/g)).toBe(87);
    expect(count(p.svg, /<text class="piece-id"/g)).toBe(54);
  });

  it('perfect answer: all 54 outlined, all 93 pairs kept', () => {
    const p = assemblyPicture(truth6x9, fixture('grid-answer-perfect.txt'));
    expect(p.inPlace).toHaveLength(54);
    expect(p.inPlace.slice(0, 3)).toEqual(['258', '300', '751']);
    expect(p.keptHorizontal.length + p.keptVertical.length).toBe(93);
    expect(count(p.svg, /class="piece in-place"/g)).toBe(54);
  });

  it('4×4 mapping with 14 and 6 swapped: 14 outlined, 10 + 10 of 12 + 12 pairs kept', () => {
    const p = assemblyPicture(truth4x4, fixture('grid-answer-4x4-mapping.json'));
    expect(new Set(p.inPlace)).toEqual(new Set(truth4x4.layout.flat().filter((id) => id !== '14' && id !== '6')));
    expect(p.keptHorizontal).toHaveLength(10);
    expect(p.keptVertical).toHaveLength(10);
    expect(p.keptHorizontal).not.toContainEqual(['14', '11']);
    expect(p.keptVertical).toContainEqual(['2', '15']);
    expect(p.keptVertical).not.toContainEqual(['5', '6']);
  });

  it('duplicates and an unknown id leave two blank cells; pairs through the missing pieces are lost', () => {
    const p = assemblyPicture(truth6x9, fixture('grid-answer-duplicates.txt'));
    expect(p.status).toBe('repaired');
    expect(p.problems.length).toBeGreaterThan(0);
    expect(p.inPlace).toHaveLength(52);
    expect(p.inPlace).not.toContain('614');
    expect(p.inPlace).not.toContain('798');
    expect(p.keptHorizontal).toHaveLength(44);
    expect(p.keptVertical).toHaveLength(41);
    expect(count(p.svg, /class="cell-blank"/g)).toBe(2);
  });

  it('wrong shape is invalid: an empty grid of blank cells, nothing kept', () => {
    const p = assemblyPicture(truth6x9, fixture('grid-answer-wrong-shape.txt'));
    expect(p.status).toBe('invalid');
    expect(p.inPlace).toEqual([]);
    expect(count(p.svg, /class="cell-blank"/g)).toBe(54);
  });

  it('with a picture each piece shows the crop of its true cell', () => {
    const p = assemblyPicture(truth4x4, fixture('grid-answer-4x4-mapping.json'), { pictureUrl: '/pictures/grid-4x4?x=1&y=2', cell: 10 });
    // Piece 6 sits at (0,0) but belongs at (3,3): its viewport shows the picture from (30, 30).
    expect(p.svg).toContain('<svg x="4" y="4" width="10" height="10" viewBox="30 30 10 10"');
    expect(p.svg).toContain('href="/pictures/grid-4x4?x=1&amp;y=2"');
    expect(count(p.svg, /<image /g)).toBe(16);
  });

  it('escapes piece ids and titles', () => {
    const truth = parseGridTruth({ rows: 1, cols: 2, layout: [['a&b', 'c']] }, 't');
    const p = assemblyPicture(truth, '[["a&b", "c"]]', { title: '</title><script>x</script>' });
    expect(p.svg).toContain('>a&amp;b</text>');
    expect(p.svg).not.toContain('<script>');
    expect(p.svg).toContain('&lt;/title&gt;&lt;script&gt;');
  });
});
