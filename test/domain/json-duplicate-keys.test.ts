import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDtsJsonl } from '../../src/analysis/describe-then-solve/rows.ts';
import { duplicateKey } from '../../src/domain/json-check.ts';
import { parseLabelsJsonl } from '../../src/domain/labels.ts';
import { FIXTURES, runCli } from '../helpers/cli.ts';

/**
 * JSON Lines and JSON files read by the CLI (labels of `assay calibrate`, rows of `assay analyze
 * describe-then-solve`, --truth/--verdicts/--rubric .json documents) went through JSON.parse, which keeps
 * the last of a key given twice: a label line saying "label":"correct","label":"incorrect" counted as
 * incorrect, exit 0. Each is refused naming the line (or file) and the key's path.
 */
const TWICE = 'key given twice (JSON keeps only one of the values; give it once)';

describe('duplicateKey', () => {
  it('an empty object before a string in an array leaves no key pending (was a TypeError)', () => {
    expect(duplicateKey('[{},"x"]')).toBeNull();
    expect(duplicateKey('{"a":[{},"a","a"],"b":1}')).toBeNull();
    expect(duplicateKey('{"a":[{},"x"],"a":1}')).toEqual({ path: ['a'] });
    expect(duplicateKey('[{},{"k":1,"k":2}]')).toEqual({ path: [1, 'k'] });
  });
});

describe('JSON Lines of the domain: a key given twice on a line', () => {
  it('a label line with two labels is refused, naming line and key', () => {
    const ok = '{"answer":"a1","item":"barn","rater":"ann","kind":"human","label":"correct"}';
    const twice = '{"answer":"a1","item":"barn","rater":"ann","kind":"human","label":"correct","label":"incorrect"}';
    expect(parseLabelsJsonl(`${ok}\n${ok.replace('a1', 'a2')}`, 'labels l.jsonl').map((r) => r.label)).toEqual(['correct', 'correct']);
    expect(() => parseLabelsJsonl(`${ok}\n\n${twice}\n`, 'labels l.jsonl')).toThrow(`labels l.jsonl: line 3: label: ${TWICE}`);
  });

  it('a describe-then-solve row with two answers is refused', () => {
    const row = '{"model":"m","item":"p1","perception":true,"answer":false,"answer":true}';
    expect(() => parseDtsJsonl(row, 'rows.jsonl')).toThrow(`rows.jsonl: line 1: answer: ${TWICE}`);
  });
});

describe('CLI JSON documents with a key given twice', { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-json-dup-'));
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('score description --verdicts V.json with an item verdict given twice: exit 2, nothing scored', () => {
    const v = write('v.json', '{"items":[{"id":"barn","verdict":"missing","verdict":"correct"}]}');
    const r = runCli(['score', 'description', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--verdicts', v, '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`assay score description: verdicts ${v}: items[0].verdict: ${TWICE}`);
  });

  it('score grid --truth T.json with "rows" given twice: exit 2', () => {
    const t = write('t.json', '{"rows":1,"rows":2,"cols":2,"layout":[["a","b"],["c","d"]]}');
    const a = write('a.txt', 'a b\nc d\n');
    const r = runCli(['score', 'grid', '--truth', t, '--answer', a, '--json']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`assay score grid: truth ${t}: rows: ${TWICE}`);
  });

  it('assay calibrate --labels with a label given twice: exit 2 naming the line', () => {
    const l = write('l.jsonl', '{"answer":"a1","item":"barn","rater":"ann","kind":"human","label":"correct","label":"incorrect"}\n');
    const r = runCli(['calibrate', '--labels', l, '--scale', 'verdict']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/line 1: label: key given twice/);
  });
});
