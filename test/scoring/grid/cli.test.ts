import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FIXTURES, runCli } from '../../helpers/cli.ts';

// Each case spawns the real binary (node + tsx); a loaded machine needs more than the default timeout.
vi.setConfig({ testTimeout: 120_000 });

const F = (name: string) => `${FIXTURES}${name}`;
const dir = mkdtempSync(join(tmpdir(), 'assay-grid-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};

const SCORE_KEYS = ['status', 'problems', 'direct', 'exactMatch', 'neighbour', 'adjacency', 'proximity', 'shapeCompatibility', 'byPosition'];

/** Exit 2, one line on stderr naming the problem, nothing on stdout. */
function expectBadInput(args: string[], stderr: string | RegExp) {
  const r = runCli(args);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(stderr);
}

describe('assay score grid', () => {
  it('--json: the design §3 document, keys exactly', () => {
    const r = runCli(['score', 'grid', '--truth', F('grid-truth-6x9.json'), '--answer', F('grid-answer-shifted.txt'), '--json']);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(Object.keys(doc)).toEqual(SCORE_KEYS);
    expect(Object.keys(doc.byPosition)).toEqual(['corner', 'edge', 'interior']);
    expect(doc.status).toBe('valid');
    expect(doc.direct).toBe(0);
    expect(doc.neighbour).toBeCloseTo(87 / 93, 12);
    expect(doc.proximity).toBeCloseTo(330 / 372, 12);
    expect(doc.shapeCompatibility).toBeCloseTo(87 / 93, 12);
  });

  it('reads the mapping form and clue mode', () => {
    const given = file('given.json', '["14"]');
    const r = runCli(['score', 'grid', '--truth', F('grid-truth-4x4.json'), '--answer', F('grid-answer-4x4-mapping.json'), '--given', given, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'valid', shapeCompatibility: null, byPosition: { edge: 1, interior: 1 } });
    expect(r.json().direct).toBeCloseTo(14 / 15, 12);
  });

  it('an unparseable answer is a result: exit 0, status invalid, metrics 0', () => {
    const r = runCli(['score', 'grid', '--truth', F('grid-truth-6x9.json'), '--answer', F('grid-answer-wrong-shape.txt'), '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'invalid', direct: 0, neighbour: 0, proximity: 0, shapeCompatibility: 0 });
  });

  it('prints a readable table with the random baseline and the problems', () => {
    const r = runCli(['score', 'grid', '--truth', F('grid-truth-6x9.json'), '--answer', F('grid-answer-duplicates.txt')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('6×9 grid, answer repaired');
    expect(r.stdout).toMatch(/^direct\s+0\.9630\s+0\.0185$/m);
    expect(r.stdout).toMatch(/^byPosition\.interior\s+0\.9286\s+0\.0185$/m);
    expect(r.stdout).toContain("  - unknown id '000' at (4,4): cell left blank");
  });

  const answer = F('grid-answer-perfect.txt');
  const truth = F('grid-truth-6x9.json');
  const badJson = file('bad.json', '{"rows": 2,');
  const ragged = file('ragged.json', '{"rows":2,"cols":2,"layout":[["a","b"],["c"]]}');
  const dup = file('dup.json', '{"rows":1,"cols":2,"layout":[["a","a"]]}');
  const unknownGiven = file('g1.json', '["258", "nope"]');
  const objGiven = file('g2.json', '{"ids": ["258"]}');
  it.each([
    ['truth not JSON', ['--truth', badJson, '--answer', answer], /^assay score grid: truth .*bad\.json: not valid JSON/],
    ['truth not rectangular', ['--truth', ragged, '--answer', answer], /truth .*ragged\.json: layout\[1\]: has 1 ids, expected cols = 2/],
    ['truth with a duplicate id', ['--truth', dup, '--answer', answer], /truth .*dup\.json: layout\[0\]\[1\]: duplicate piece id 'a'/],
    ['missing truth file', ['--truth', join(dir, 'none.json'), '--answer', answer], /truth .*none\.json: no such file/],
    ['missing answer file', ['--truth', truth, '--answer', join(dir, 'none.txt')], /answer .*none\.txt: no such file/],
    ['no --answer', ['--truth', truth], /missing required option --answer/],
    ['unknown given id', ['--truth', truth, '--answer', answer, '--given', unknownGiven], /given .*g1\.json: unknown piece id 'nope'/],
    ['given not an array', ['--truth', truth, '--answer', answer, '--given', objGiven], /given .*g2\.json: expected a JSON array of piece ids/],
  ])('bad input (%s) exits 2 with one line naming the file', (_, args, stderr) => {
    expectBadInput(['score', 'grid', ...args], stderr);
  });
});

describe('assay baseline grid', () => {
  it('--json: closed forms, keys exactly; shapeCompatibility null without --shapes', () => {
    const r = runCli(['baseline', 'grid', '--rows', '4', '--cols', '4', '--json']);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(Object.keys(doc)).toEqual(['direct', 'neighbour', 'adjacency', 'proximity', 'shapeCompatibility']);
    expect(doc).toEqual({ direct: 1 / 16, neighbour: 1 / 20, adjacency: 4 / 20, proximity: 0, shapeCompatibility: null });
  });

  it('--shapes is seeded: the same seed gives the same estimate, near the exact 0.3083', () => {
    const args = ['baseline', 'grid', '--rows', '4', '--cols', '4', '--shapes', '--trials', '4000', '--seed', '7', '--json'];
    const a = runCli(args).json();
    expect(runCli(args).json()).toEqual(a);
    expect(Math.abs(a.shapeCompatibility - 74 / 240)).toBeLessThan(0.01);
  });

  it.each([
    [['--rows', '0', '--cols', '4'], /--rows must be ≥ 1, got 0/],
    [['--rows', '2.5', '--cols', '4'], /--rows must be a whole number/],
    [['--rows', '4', '--cols', '4', '--trials', '10'], /add --shapes/],
    [['--cols', '4'], /missing required option --rows/],
  ])('bad flags %j exit 2', (args, stderr) => {
    expectBadInput(['baseline', 'grid', ...args], stderr);
  });
});
