import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, runCli } from '../../helpers/cli.ts';

const rubric = `${FIXTURES}farmyard.rubric.yaml`;
const verdicts = `${FIXTURES}farmyard.verdicts.json`;
const answer = `${FIXTURES}farmyard.answer.txt`;
const dir = mkdtempSync(join(tmpdir(), 'assay-description-'));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

function expectBadInput(args: string[], pattern: RegExp) {
  const r = runCli(['score', 'description', ...args]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

// Each case spawns bin/assay; a loaded machine can take seconds per start.
describe('assay score description', { timeout: 180_000 }, () => {
  it('prints the design §3 document for the farmyard example', () => {
    const r = runCli(['score', 'description', '--rubric', rubric, '--verdicts', verdicts, '--answer', answer, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const j = r.json();
    expect(Object.keys(j)).toEqual(['completeness', 'correctness', 'f1', 'points', 'claims', 'meta']);
    expect(j.completeness).toBe(12.5 / 21.5);
    expect(j.correctness).toBe(11 / 14);
    expect(j.f1).toBeCloseTo(0.6683, 4);
    expect(j.points).toEqual({ earned: 12.5, possible: 21.5 });
    expect(j.claims).toEqual({ true: 11, false: 2, unverifiable: 1, total: 14 });
    expect(j.meta).toEqual({
      orientation: { stated: 'landscape', correct: true },
      grid: { stated: { rows: 6, cols: 9 }, correct: true, transposed: false },
      pieceCount: { stated: 54, error: 0 },
    });
  });

  it('--unverifiable exclude gives 11/13; no --answer, no meta', () => {
    const j = runCli(['score', 'description', '--rubric', `${ROOT}rubrics/farmyard.yaml`, '--verdicts', verdicts, '--unverifiable', 'exclude', '--json']).json();
    expect(j.correctness).toBe(11 / 13);
    expect(j.meta).toBeUndefined();
  });

  it('prints a readable summary, item table and meta table without --json', () => {
    const r = runCli(['score', 'description', '--rubric', rubric, '--verdicts', verdicts, '--answer', answer]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^completeness\s+0\.5814\s+\(12\.5 of 21\.5 weighted points\)$/m);
    expect(r.stdout).toMatch(/^correctness\s+0\.7857/m);
    expect(r.stdout).toMatch(/^f1\s+0\.6683$/m);
    expect(r.stdout).toMatch(/^cow-in-barn\s+1\s+missing\s+0$/m);
    expect(r.stdout).toMatch(/^grid\s+6 × 9\s+6 × 9\s+yes$/m);
  });

  it('flags a transposed grid in the meta', () => {
    const a = write('transposed.txt', 'A farm.\n\nOrientation: landscape\nGrid: 9 x 6\nPieces: 48');
    const j = runCli(['score', 'description', '--rubric', rubric, '--verdicts', verdicts, '--answer', a, '--json']).json();
    expect(j.meta.grid).toEqual({ stated: { rows: 9, cols: 6 }, correct: false, transposed: true });
    expect(j.meta.pieceCount).toEqual({ stated: 48, error: 6 / 54 });
  });

  it('exit 2: a verdict naming an unknown rubric item', () => {
    const v = write('unknown.json', JSON.stringify({ items: [{ id: 'windmill', verdict: 'correct' }], claims: [] }));
    expectBadInput(['--rubric', rubric, '--verdicts', v], /^assay score description: verdicts .*unknown\.json: items\[0\]: unknown rubric item 'windmill'/);
  });

  it('exit 2: the same item judged twice', () => {
    const v = write('twice.json', JSON.stringify({ items: [{ id: 'barn', verdict: 'correct' }, { id: 'barn', verdict: 'missing' }] }));
    expectBadInput(['--rubric', rubric, '--verdicts', v], /twice\.json: items\[1\]: rubric item 'barn' has more than one verdict$/);
  });

  it('exit 2: malformed rubric (negative weight, YAML syntax, missing file)', () => {
    const neg = write('neg.yaml', 'id: r\ntitle: T\nreference: text\nitems:\n  - { id: a, text: t, weight: 1 }\n  - { id: b, text: t, weight: -1 }\n');
    expectBadInput(['--rubric', neg, '--verdicts', verdicts], /^assay score description: rubric .*neg\.yaml: items\[1\]\.weight: /);
    const broken = write('broken.yaml', 'id: [unclosed\n');
    expectBadInput(['--rubric', broken, '--verdicts', verdicts], /rubric .*broken\.yaml: not valid YAML/);
    expectBadInput(['--rubric', join(dir, 'nope.yaml'), '--verdicts', verdicts], /rubric .*nope\.yaml: no such file/);
  });

  it('exit 2: malformed verdicts (bad JSON, bad verdict word)', () => {
    const bad = write('bad.json', '{"items": [');
    expectBadInput(['--rubric', rubric, '--verdicts', bad], /verdicts .*bad\.json: not valid JSON/);
    const word = write('word.json', JSON.stringify({ items: [{ id: 'barn', verdict: 'right' }] }));
    expectBadInput(['--rubric', rubric, '--verdicts', word], /verdicts .*word\.json: items\[0\]\.verdict: /);
  });

  it('exit 2: missing flag or bad policy', () => {
    expectBadInput(['--rubric', rubric], /missing required option --verdicts/);
    expectBadInput(['--rubric', rubric, '--verdicts', verdicts, '--unverifiable', 'drop'], /--unverifiable must be one of count\|exclude/);
  });
});
