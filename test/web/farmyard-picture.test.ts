import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

/** The bundled farmyard picture: drawn for the rubric, cut to the 6 × 9 puzzle, safe to serve. */

const ROOT = new URL('../../', import.meta.url).pathname;
const rubric = parseYaml(readFileSync(`${ROOT}rubrics/farmyard.yaml`, 'utf8')) as { image: string; items: Array<{ id: string }> };
const puzzle = JSON.parse(readFileSync(`${ROOT}rubrics/examples/puzzles/farmyard-6x9.json`, 'utf8')) as { rows: number; cols: number; picture: string };
const svg = readFileSync(`${ROOT}rubrics/images/farmyard.svg`, 'utf8');

/** Width and height from a PNG's IHDR chunk (bytes 16–23). */
function pngSize(path: string): [number, number] {
  const b = readFileSync(path);
  expect(b.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

describe('the farmyard picture', () => {
  it("the rubric's image (next to the rubric) and the puzzle's picture (from the repository root) are the same PNG", () => {
    const fromRubric = resolve(dirname(`${ROOT}rubrics/farmyard.yaml`), rubric.image);
    expect(fromRubric).toBe(resolve(ROOT, puzzle.picture));
    expect(pngSize(fromRubric)).toEqual([1800, 1200]);
  });

  it('is the 6 × 9 puzzle at 100 px a piece (SVG 900 × 600; the PNG twice that, same aspect)', () => {
    expect(svg).toMatch(/viewBox="0 0 900 600"/);
    expect([puzzle.rows * 100, puzzle.cols * 100]).toEqual([600, 900]);
    const [w, h] = pngSize(`${ROOT}rubrics/images/farmyard.png`);
    expect(w / h).toBe(puzzle.cols / puzzle.rows);
  });

  it('draws every rubric item as a group with its id and a title', () => {
    for (const it of rubric.items) expect(svg, it.id).toMatch(new RegExp(`<g id="${it.id}">\\s*<title>[^<]+</title>`));
    // Defined shapes have their own ids, so no rubric id is defined twice.
    for (const it of rubric.items) expect(svg.split(`id="${it.id}"`).length - 1, it.id).toBe(1);
  });

  it('holds no script, style, event handler or reference outside itself', () => {
    expect(svg).not.toMatch(/<script|<style|<foreignObject|\son[a-z]+=|javascript:/i);
    const hrefs = [...svg.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);
    expect(hrefs.length).toBeGreaterThan(20);
    for (const h of hrefs) expect(h).toMatch(/^#s-[a-z-]+$/);
  });

  it('states its licence next to it', () => {
    expect(readFileSync(`${ROOT}rubrics/images/SOURCE.md`, 'utf8')).toMatch(/Licence: \*\*CC-BY-4\.0\*\*/);
  });
});
