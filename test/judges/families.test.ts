import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { familyIndex, familyOf, sameFamily, UNKNOWN_FAMILY } from '../../src/domain/model-families.ts';
import { loadJudge } from '../../src/judges/config.ts';
import { loadFamilies } from '../../src/judges/families.ts';
import { badInputMessage } from '../helpers/errors.ts';

/** Model families (self-preference flag): the bundled table, the longest-prefix lookup, the loader's refusals. */

const tableFile = (text: string): string => {
  const p = join(mkdtempSync(join(tmpdir(), 'assay-families-')), 'families.yaml');
  writeFileSync(p, text);
  return p;
};

describe('the bundled judges/families.yaml', () => {
  const index = loadFamilies();

  it.each([
    ['claude-sonnet-5', 'anthropic'],
    ['claude-opus-4-5', 'anthropic'],
    ['anthropic/claude-3.5-sonnet', 'anthropic'],
    ['gpt-4.1', 'openai'],
    ['GPT-4o-mini', 'openai'],
    ['o1-preview', 'openai'],
    ['o3', 'openai'],
    ['o4-mini', 'openai'],
    ['openai/gpt-4o', 'openai'],
    ['gemini-2.5-pro', 'google'],
    ['gemma-3-27b', 'google'],
    ['llama-3.2-90b-vision', 'meta'],
    ['meta-llama/Llama-3.2-11B-Vision', 'meta'],
    ['Qwen2.5-VL-72B', 'alibaba'],
    ['mistral-large', 'mistral'],
    ['pixtral-12b', 'mistral'],
    ['local', UNKNOWN_FAMILY],
    ['lexical-overlap-v1', UNKNOWN_FAMILY],
    ['', UNKNOWN_FAMILY],
  ])('%s → %s', (model, family) => {
    expect(familyOf(index, model)).toBe(family);
  });

  it('gives the bundled judges their families', () => {
    expect(familyOf(index, loadJudge('claude').config.model)).toBe('anthropic');
    expect(familyOf(index, loadJudge('gpt').config.model)).toBe('openai');
  });

  it('flags a judge grading its own family, never two unknown models', () => {
    expect(sameFamily(index, 'claude-opus-4-5', 'claude-sonnet-5')).toBe(true);
    expect(sameFamily(index, 'gpt-4.1', 'claude-sonnet-5')).toBe(false);
    expect(sameFamily(index, 'local', 'some-other-local-model')).toBe(false);
  });
});

describe('longest-prefix lookup', () => {
  const index = familyIndex({ prefixes: { 'gpt-': 'openai', 'gpt-4o-fork': 'forkers', G: 'gee' } });

  it('the longest matching prefix wins, whatever the table order; case-insensitive on both sides', () => {
    expect(familyOf(index, 'gpt-4o-fork-v2')).toBe('forkers');
    expect(familyOf(index, 'GPT-4O-FORK')).toBe('forkers');
    expect(familyOf(index, 'gpt-4o')).toBe('openai');
    expect(familyOf(index, 'gemini')).toBe('gee');
    expect(familyOf(index, 'xyz')).toBe(UNKNOWN_FAMILY);
  });

  it('is the family of the longest table prefix the name starts with (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-c]{1,4}$/), fc.constantFrom('f1', 'f2', 'f3'), { maxKeys: 8 }), fc.stringMatching(/^[a-c]{0,6}$/), (prefixes, model) => {
        const got = familyOf(familyIndex({ prefixes }), model);
        const matches = Object.keys(prefixes).filter((p) => model.startsWith(p));
        if (matches.length === 0) expect(got).toBe(UNKNOWN_FAMILY);
        else expect(got).toBe(prefixes[matches.reduce((a, b) => (b.length > a.length ? b : a))]);
      }),
    );
  });
});

describe('the loader refuses a bad table with one line', () => {
  it.each([
    ['prefixes:\n  gpt-: OpenAI\n', /prefixes\.gpt-: families are lower-case letters/],
    ['prefixes:\n  gpt-: unknown\n', /prefixes\.gpt-: 'unknown' is what unmatched models get/],
    ['prefixes:\n  gpt-: openai\n  GPT-: openai\n', /prefixes\.GPT-: same prefix as 'gpt-' \(prefixes match case-insensitively\)/],
    ['prefixes:\n  "": openai\n', /a prefix must not be empty/],
    ['families:\n  gpt-: openai\n', /families/],
    ['prefixes:\n  gpt-: [openai]\n', /prefixes\.gpt-/],
  ])('%j', (text, pattern) => {
    const p = tableFile(text);
    const msg = badInputMessage(() => loadFamilies(p));
    expect(msg.startsWith(`model families table ${p}: `)).toBe(true);
    expect(msg).toMatch(pattern);
  });

  it('a missing or unparsable file', () => {
    expect(badInputMessage(() => loadFamilies('/nonexistent/families.yaml'))).toMatch(/model families table \/nonexistent\/families\.yaml: no such file/);
    expect(badInputMessage(() => loadFamilies(tableFile('prefixes: [unclosed\n')))).toMatch(/model families table/);
  });
});
