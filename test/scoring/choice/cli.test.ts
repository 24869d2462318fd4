import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';

const here = fileURLToPath(new URL('./fixtures/', import.meta.url));
const key = `${here}key.jsonl`;
const responses = `${here}responses.jsonl`;
const dir = mkdtempSync(join(tmpdir(), 'assay-choice-'));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

function expectBadInput(args: string[], pattern: RegExp) {
  const r = runCli(['score', 'choice', ...args]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

// Each case spawns bin/assay; a loaded machine can take seconds per start.
describe('assay score choice', { timeout: 180_000 }, () => {
  it('scores the fixture per model, category and domain', () => {
    const r = runCli(['score', 'choice', '--key', key, '--responses', responses, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { models } = r.json();
    expect(Object.keys(models)).toEqual(['vision-a', 'vision-b']);
    expect(models['vision-a']).toMatchObject({ n: 5, accuracy: 0.6, invalidRate: 0.2, missing: 0, unweightedCategoryMean: (1 / 3 + 1) / 2 });
    expect(models['vision-a'].byCategory.rotation).toEqual({ n: 3, accuracy: 1 / 3, invalidRate: 1 / 3 });
    expect(models['vision-b']).toMatchObject({ n: 5, accuracy: 0.2, invalidRate: 0.6, missing: 2, unweightedCategoryMean: 0.25 });
    expect(models['vision-b'].byDomain.visual).toEqual({ n: 2, accuracy: 0, invalidRate: 0.5 });
  });

  it('prints readable tables without --json, and per-response reasons with --details', () => {
    const r = runCli(['score', 'choice', '--key', key, '--responses', responses]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^vision-a\s+5\s+3\s+0\.6000\s+1\s+0\.2000\s+0\s+0\.6667$/m);
    expect(r.stdout).toMatch(/^vision-b\s+counting\s+2\s+0\.5000\s+0\.5000$/m);
    const d = runCli(['score', 'choice', '--key', key, '--responses', responses, '--details']);
    expect(d.stdout).toContain('conflicting explicit answers: B, E');
    const dj = runCli(['score', 'choice', '--key', key, '--responses', responses, '--details', '--json']).json();
    expect(dj.responses).toHaveLength(8);
    expect(dj.responses[2]).toEqual({ model: 'vision-a', id: 'q3', expected: 'C', choice: null, status: 'invalid', correct: false, reason: 'no answer found' });
  });

  it('exit 2: a response for an id not in the key, naming the line', () => {
    const a = write('unknown.jsonl', '{"id":"q1","model":"m","response":"A"}\n\n{"id":"q42","model":"m","response":"A"}\n');
    expectBadInput(['--key', key, '--responses', a], /^assay score choice: responses .*unknown\.jsonl: line 3: id 'q42' is not in the key$/);
  });

  it('exit 2: a duplicate (model, id)', () => {
    const a = write('dup.jsonl', '{"id":"q1","model":"m","response":"A"}\n{"id":"q1","model":"m","response":"B"}\n');
    expectBadInput(['--key', key, '--responses', a], /dup\.jsonl: line 2: duplicate response for model 'm', id 'q1' \(first on line 1\)$/);
  });

  it('exit 2: a key row without an answer, malformed key JSON, a missing file', () => {
    const k = write('noanswer.jsonl', '{"id":"q1","answer":"A"}\n{"id":"q2","category":"x"}\n');
    expectBadInput(['--key', k, '--responses', responses], /^assay score choice: key .*noanswer\.jsonl: line 2: key row 'q2' has no "answer"$/);
    const bad = write('bad.jsonl', '{"id":"q1","answer":"A"}\n{"id":\n');
    expectBadInput(['--key', bad, '--responses', responses], /key .*bad\.jsonl: line 2: not valid JSON/);
    expectBadInput(['--key', join(dir, 'none.jsonl'), '--responses', responses], /key .*none\.jsonl: no such file/);
    expectBadInput(['--key', key], /missing required option --responses/);
  });
});
