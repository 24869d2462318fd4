import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AssayError } from '../../src/domain/errors.ts';
import { readInputText } from '../../src/input/text-file.ts';
import { MAX_YAML_BYTES, parseYamlInput } from '../../src/input/yaml.ts';
import { FIXTURES } from '../helpers/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'assay-input-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer) => {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
};

/** The error a call throws (bad input expected): its code and message. */
function refusal(f: () => unknown): { code: string; message: string } {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AssayError);
    return { code: (e as AssayError).code, message: (e as AssayError).message };
  }
  throw new Error('expected a refusal, got a value');
}

describe('readInputText', () => {
  it('returns the text, without a leading byte-order mark', () => {
    expect(readInputText(file('bom.json', '\ufeff{"a":1}'))).toBe('{"a":1}');
    expect(readInputText(file('plain.txt', 'café\n'))).toBe('café\n');
  });

  it.each([
    ['missing', () => join(tmp, 'nope.txt'), /nope\.txt: no such file$/],
    ['a directory', () => (mkdirSync(join(tmp, 'd'), { recursive: true }), join(tmp, 'd')), /d: is a directory, expected a file$/],
    ['empty', () => file('empty.txt', ''), /empty\.txt: empty file$/],
    ['blank', () => file('blank.txt', ' \n\t\n'), /blank\.txt: empty file$/],
    ['with a NUL byte on line 2', () => file('nul.txt', 'ok\nb\u0000ad\n'), /nul\.txt: contains a NUL byte \(line 2\)/],
    ['Latin-1, not UTF-8', () => file('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])), /latin1\.txt: not valid UTF-8 .*\b3\b/],
  ])('refuses a file that is %s, naming it', (_, make, message) => {
    const r = refusal(() => readInputText(make(), { what: 'answer' }));
    expect(r.code).toBe('bad_input');
    expect(r.message).toMatch(/^answer /);
    expect(r.message).toMatch(message);
  });

  it('refuses a file over the cap before reading it, and a stream past the cap while reading', () => {
    const p = file('big.txt', 'x'.repeat(2000));
    expect(refusal(() => readInputText(p, { maxBytes: 1000 })).message).toBe(`${p}: too large (2000 bytes; the limit is 1000)`);
    expect(readInputText(p, { maxBytes: 2000 })).toHaveLength(2000);
  });

  it('allows an empty file when asked', () => {
    expect(readInputText(file('empty2.txt', ''), { allowEmpty: true })).toBe('');
  });
});

describe('parseYamlInput', () => {
  it('parses ordinary YAML, aliases included', () => {
    expect(parseYamlInput('a: &x [1, 2]\nb: *x\n', 'f.yaml')).toEqual({ a: [1, 2], b: [1, 2] });
  });

  it('refuses a billion-laughs file as bad input instead of expanding it', () => {
    const bomb = readFileSync(join(FIXTURES, 'bad-input', 'files', 'bomb.yaml'), 'utf8');
    expect(refusal(() => parseYamlInput(bomb, 'rubric bomb.yaml'))).toEqual({
      code: 'bad_input',
      message: 'rubric bomb.yaml: too many YAML alias expansions (more than 100; an alias bomb?)',
    });
  });

  it('refuses text over the YAML cap, invalid YAML on one line, a NUL escape and deep nesting', () => {
    expect(refusal(() => parseYamlInput('#'.repeat(MAX_YAML_BYTES + 1), 'big.yaml')).message).toMatch(/^big\.yaml: too large for YAML/);
    const bad = refusal(() => parseYamlInput('a: [1\nb: 2\n', 'bad.yaml')).message;
    expect(bad).toMatch(/^bad\.yaml: not valid YAML \(/);
    expect(bad).not.toContain('\n');
    expect(refusal(() => parseYamlInput('title: "a\\0b"\n', 'nul.yaml')).message).toMatch(/^nul\.yaml: title: contains a NUL/);
    expect(refusal(() => parseYamlInput(`${'['.repeat(40)}${']'.repeat(40)}`, 'deep.yaml')).message).toMatch(/^deep\.yaml.*nested deeper than 32 levels$/);
  });
});
