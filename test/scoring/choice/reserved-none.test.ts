import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKey, parseResponses } from '../../../src/scoring/choice/rows.ts';
import { scoreChoices } from '../../../src/scoring/choice/score.ts';
import { badInputMessage } from '../../helpers/errors.ts';
import { runCli } from '../../helpers/cli.ts';

/**
 * Questions without a category are reported under `(none)` (docs/choice-scoring.md). A key whose category
 * (or domain) is literally "(none)" merged with them: q1 in category "(none)" (correct) and q2 without
 * one (wrong) came out as one row {"(none)": n 2, accuracy 0.5}, and the unweighted category mean counted
 * one category of two questions where the key had two categories (exit 0). The name is the report's label
 * for "no category", so the key may not use it: refused, naming the line.
 */

const KEY = ['{"id":"q1","answer":"A","category":"(none)"}', '{"id":"q2","answer":"B"}', '{"id":"q3","answer":"C","category":"count"}'].join('\n');
const RESPONSES = ['{"id":"q1","model":"m","response":"A"}', '{"id":"q2","model":"m","response":"A"}', '{"id":"q3","model":"m","response":"C"}'].join('\n');

describe('a category or domain named (none)', () => {
  it('is refused in the key, naming its line', () => {
    const key = parseKey(KEY, 'key K.jsonl');
    expect(badInputMessage(() => scoreChoices(key, parseResponses(RESPONSES, 'r'), { keyName: 'key K.jsonl' }))).toBe(
      'key K.jsonl: line 1: category \'(none)\' is the name reports give questions without a category; rename it',
    );
    const dom = parseKey('{"id":"q1","answer":"A","domain":"(none)"}\n{"id":"q2","answer":"B","domain":"x"}', 'key');
    expect(badInputMessage(() => scoreChoices(dom, []))).toMatch(/^key: line 1: domain '\(none\)' is the name reports give questions without a domain/);
  });

  it('without it, uncategorised questions keep their own row (hand-computed)', () => {
    const key = parseKey(KEY.replace('"(none)"', '"rotation"'), 'key');
    const m = scoreChoices(key, parseResponses(RESPONSES, 'r')).models.m!;
    expect(m.byCategory).toEqual({
      '(none)': { n: 1, accuracy: 0, invalidRate: 0 },
      count: { n: 1, accuracy: 1, invalidRate: 0 },
      rotation: { n: 1, accuracy: 1, invalidRate: 0 },
    });
    expect(m.unweightedCategoryMean).toBe(2 / 3);
  });

  it('assay score choice: exit 2, nothing on stdout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-none-'));
    writeFileSync(join(dir, 'K.jsonl'), KEY);
    writeFileSync(join(dir, 'A.jsonl'), RESPONSES);
    const r = runCli(['score', 'choice', '--key', join(dir, 'K.jsonl'), '--responses', join(dir, 'A.jsonl'), '--json']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/line 1: category '\(none\)' is the name reports give questions without a category/);
    expect(r.code).toBe(2);
  });
});
