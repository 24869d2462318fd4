import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONVERTERS } from '../../src/services/import-formats/index.ts';

/**
 * Another tool's JSON log read by `assay import answers --from inspect|promptfoo` (and an export's
 * judges.json) went through JSON.parse, which keeps the last of a key given twice without a word: a log
 * saying `"completion": "a", "completion": "b"` was stored as "b", exit 0. JSONL lines and YAML/JSON
 * documents already refuse it; so do these, naming the key's path.
 */

const DIR = 'test/fixtures/import-formats';
const twice = (name: string, key: string) => {
  const content = readFileSync(`${DIR}/${name}`, 'utf8');
  const at = content.indexOf(`"${key}": "`);
  expect(at).toBeGreaterThan(0);
  return { path: `${DIR}/${name}`, content: `${content.slice(0, at)}"${key}": "other", ${content.slice(at)}` };
};

describe('a key given twice in a tool’s JSON log', () => {
  it('inspect: refused naming the path, not the last value kept', () => {
    expect(() => CONVERTERS.inspect(twice('inspect-log.json', 'completion'), {})).toThrow(/^test\/fixtures\/import-formats\/inspect-log\.json: samples\[2\]\.output\.completion: given twice/);
  });
  it('promptfoo: refused naming the path', () => {
    expect(() => CONVERTERS.promptfoo(twice('promptfoo-results.json', 'output'), {})).toThrow(/^test\/fixtures\/import-formats\/promptfoo-results\.json: results\.results\[0\]\.response\.output: given twice/);
  });
  it('the files as the tools write them still convert', () => {
    expect(CONVERTERS.inspect({ path: 'l.json', content: readFileSync(`${DIR}/inspect-log.json`, 'utf8') }, {}).rows.length).toBeGreaterThan(0);
  });
});
