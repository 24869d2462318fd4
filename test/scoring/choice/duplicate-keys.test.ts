import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonlRows, parseKey, parseResponses } from '../../../src/scoring/choice/rows.ts';
import { runCli } from '../../helpers/cli.ts';

/**
 * A JSON Lines row naming a key twice: JSON.parse keeps the last value without a word, so the key line
 * {"id":"a","answer":"B","answer":"C"} was scored against C, exit 0. Which answer was meant cannot be
 * told: the line is refused, naming the line and the key (exit 2).
 */
const TWICE = 'key given twice (JSON keeps only one of the values; give it once)';

describe('choice rows: a key given twice on a line', () => {
  it('a key row with two answers is refused, naming line and key', () => {
    expect(() => parseKey('{"id":"x","answer":"A"}\n{"id":"a","answer":"B","answer":"C"}\n', 'key k.jsonl')).toThrow(`key k.jsonl: line 2: answer: ${TWICE}`);
  });

  it('a response row with two responses, and a nested key, are refused', () => {
    expect(() => parseResponses('{"id":"a","model":"m","response":"B","response":"C"}', 'responses r.jsonl')).toThrow(`responses r.jsonl: line 1: response: ${TWICE}`);
    // Keys compare decoded: "\u0069d" is "id".
    expect(() => jsonlRows('\n\n{"id":"a","\\u0069d":"b"}', 'f')).toThrow(`f: line 3: id: ${TWICE}`);
    expect(() => jsonlRows('{"id":"a","items":[{"id":"x","verdict":"correct","verdict":"missing"}]}', 'v')).toThrow(`v: line 1: items[0].verdict: ${TWICE}`);
  });

  it('the same key in different objects, and an empty object before a string in an array, are fine', () => {
    expect(jsonlRows('{"id":"a","meta":{"id":"b"},"x":[{},"id","id"]}', 'f')).toEqual([{ line: 1, value: { id: 'a', meta: { id: 'b' }, x: [{}, 'id', 'id'] } }]);
    expect(parseKey('{"id":"a","answer":"B"}\n{"id":"b","answer":"C"}', 'k').map((r) => r.answer)).toEqual(['B', 'C']);
  });
});

describe('assay score choice with a key given twice', { timeout: 120_000 }, () => {
  it('exits 2 naming the line and key, and prints no score', () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-choice-dup-'));
    const key = join(dir, 'key.jsonl');
    const responses = join(dir, 'responses.jsonl');
    writeFileSync(key, '{"id":"a","answer":"B","answer":"C"}\n');
    writeFileSync(responses, '{"id":"a","model":"m","response":"C"}\n');
    const r = runCli(['score', 'choice', '--key', key, '--responses', responses, '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toMatch(/line 1: answer: key given twice/);
  });
});
