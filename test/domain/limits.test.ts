import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { Fields, JsonObjectSchema } from '../../src/domain/fields.ts';
import { explainIssue } from '../../src/domain/issues.ts';
import { decodeUtf8, exceedsDepth, firstInvalidUtf8, jsonValueProblem, parseCheckedJson } from '../../src/domain/json-check.ts';
import { CAPS, INT4_MAX, int4, MAX_JSON_DEPTH, parseRowId, rowIdProblem, text, textProblem } from '../../src/domain/limits.ts';
import { parseDocumentFile, parseJsonl } from '../../src/services/import-parse.ts';

/** Issue 11 finding 6: the limits every front shares (src/domain/limits.ts, json-check.ts, fields.ts). */

const messages = (r: { success: boolean; error?: z.ZodError }) => (r.success ? [] : r.error!.issues.map((i) => i.message));

describe('text fields', () => {
  it('refuse NUL and lone surrogates, and accept astral characters (surrogate pairs)', () => {
    expect(textProblem('a\u0000b')).toMatch(/NUL/);
    expect(textProblem('a\ud800')).toMatch(/lone UTF-16 surrogate/);
    expect(textProblem('\udc00a')).toMatch(/lone UTF-16 surrogate/);
    expect(textProblem('\udc00\ud800')).toMatch(/lone UTF-16 surrogate/);
    expect(textProblem('🐄 Kuh ä')).toBeNull();
  });

  it('have one cap each, counted in characters (code points)', () => {
    expect(Fields.run.safeParse('r'.repeat(CAPS.name)).success).toBe(true);
    expect(messages(Fields.run.safeParse('r'.repeat(CAPS.name + 1)))).toEqual(['must be at most 200 characters']);
    expect(messages(Fields.run.safeParse(''))).toEqual(['must not be empty']);
    expect(messages(Fields.rubricTitle.safeParse('t'.repeat(501)))).toEqual(['must be at most 500 characters']);
    expect(Fields.answerText.safeParse('').success).toBe(true);
    expect(messages(Fields.answerText.safeParse('a'.repeat(CAPS.longText + 1)))).toEqual([`must be at most ${CAPS.longText} characters`]);
    expect(text(3).safeParse('🐄🐄🐄').success).toBe(true);
    expect(messages(text(3).safeParse('🐄🐄🐄🐄'))).toEqual(['must be at most 3 characters']);
  });

  it('slugs keep their character rule and get the cap and the NUL rule', () => {
    expect(messages(Fields.rubricId.safeParse('a b'))).toEqual(['rubric ids are letters, digits, . _ -']);
    expect(messages(Fields.rubricId.safeParse('a\u0000'))).toContain('contains a NUL character (U+0000), which text cannot hold');
  });
});

describe('integers', () => {
  it('are limited to the int4 column range', () => {
    expect(Fields.tokens.safeParse(INT4_MAX).success).toBe(true);
    expect(Fields.tokens.safeParse(0).success).toBe(true);
    expect(messages(Fields.tokens.safeParse(INT4_MAX + 1))).toEqual([`must be at most ${INT4_MAX} (the range of a 32-bit column)`]);
    expect(messages(Fields.tokens.safeParse(-1))).toEqual(['must be at least 0']);
    expect(messages(Fields.rowId.safeParse(0))).toEqual(['must be at least 1']);
    expect(messages(Fields.rowId.safeParse(1.5))).toEqual(['must be a whole number']);
    expect(Fields.rowId.safeParse(Infinity).success).toBe(false);
    expect(messages(int4(1, 1000).safeParse(1001))).toEqual(['must be at most 1000']);
  });

  it('row ids in paths and flags are plain decimal digits in 1..2147483647', () => {
    for (const ok of ['1', '42', String(INT4_MAX)]) expect(rowIdProblem(ok), ok).toBeNull();
    for (const bad of ['0', String(INT4_MAX + 1), '3000000000', '1e3', '0x10', ' 7', '7 ', '-1', '1.5', '', '99999999999999999999']) {
      expect(rowIdProblem(bad), bad).toMatch(/^must be a whole number from 1 to 2147483647/);
    }
    expect(parseRowId('12', 'answer id')).toBe(12);
    expect(() => parseRowId('3000000000', 'answer id')).toThrow('answer id: must be a whole number from 1 to 2147483647, got 3000000000');
  });
});

describe('JSON documents', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('are limited to 32 levels; brackets inside strings do not count', () => {
    expect(MAX_JSON_DEPTH).toBe(32);
    expect(exceedsDepth(nested(32))).toBe(false);
    expect(exceedsDepth(nested(33))).toBe(true);
    expect(exceedsDepth(`["${'['.repeat(100)}"]`)).toBe(false);
    expect(exceedsDepth(`["\\"${'{'.repeat(100)}"]`)).toBe(false);
    // JSON Lines: each line is its own document; a malformed line does not carry depth over.
    expect(exceedsDepth(`${'['.repeat(30)}\n${'['.repeat(30)}`, 32, true)).toBe(false);
    expect(exceedsDepth(`${'['.repeat(30)}\n${'['.repeat(30)}`, 32, false)).toBe(true);
  });

  it('a body nested 1,000,000 deep is refused without overflowing any stack', () => {
    expect(() => parseCheckedJson(nested(1_000_000), 'body')).toThrow('body: nested deeper than 32 levels');
    // The value walk is iterative too: a value built deeper than any recursion could go.
    let deep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(jsonValueProblem(deep)?.problem).toBe('nested deeper than 32 levels');
    expect(JsonObjectSchema.safeParse({ a: deep }).success).toBe(false);
  });

  it('refuse NUL and lone surrogates in keys and values, and non-finite numbers, naming the path', () => {
    expect(jsonValueProblem({ a: [1, { b: 'x\u0000' }] })).toEqual({ path: ['a', 1, 'b'], problem: 'contains a NUL character (U+0000), which text cannot hold' });
    expect(jsonValueProblem({ 'k\u0000': 1 })?.problem).toMatch(/^key contains a NUL/);
    expect(jsonValueProblem({ a: '\ud800' })?.problem).toMatch(/lone UTF-16 surrogate/);
    expect(jsonValueProblem(JSON.parse('{"a":1e999}'))).toEqual({ path: ['a'], problem: 'is not a finite number' });
    expect(jsonValueProblem({ a: ['ok', 1.5, null, true, { b: '🐄' }] })).toBeNull();
    expect(() => parseCheckedJson('{"meta":{"a":"\\u0000"}}', 'body')).toThrow('body: meta.a: contains a NUL character');
  });
});

describe('UTF-8', () => {
  const bytes = (...b: number[]) => new Uint8Array(b);
  it('is decoded strictly: invalid bytes are refused with their offset, never replaced by U+FFFD', () => {
    expect(decodeUtf8(new TextEncoder().encode('Kuh 🐄 ä'), 'f')).toBe('Kuh 🐄 ä');
    expect(() => decodeUtf8(bytes(0x61, 0xff), 'body')).toThrow('body: not valid UTF-8 (first invalid byte at offset 1)');
    expect(firstInvalidUtf8(bytes(0x61, 0x62, 0xc0, 0xaf))).toBe(2); // overlong "/"
    expect(firstInvalidUtf8(bytes(0xed, 0xa0, 0x80))).toBe(0); // an encoded surrogate
    expect(firstInvalidUtf8(bytes(0x61, 0xf4, 0x90, 0x80, 0x80))).toBe(1); // above U+10FFFF
    expect(firstInvalidUtf8(bytes(0x61, 0xe2, 0x82))).toBe(1); // cut off
    expect(firstInvalidUtf8(new TextEncoder().encode('ä🐄'))).toBe(6);
  });
});

describe('import files', () => {
  it('refuse NUL in a YAML double-quoted string, naming file and line', () => {
    expect(() => parseDocumentFile({ path: 'r.yaml', content: 'id: r\ntitle: "a\\0b"\n' })).toThrow(/^r\.yaml(:2)?: title: contains a NUL character/);
  });

  it('refuse a YAML document nested past the limit', () => {
    const content = `a: ${'['.repeat(40)}${']'.repeat(40)}\n`;
    expect(() => parseDocumentFile({ path: 'r.yaml', content })).toThrow(/nested deeper than 32 levels/);
    expect(() => parseDocumentFile({ path: 'r.yaml', content: `a: ${'['.repeat(5000)}${']'.repeat(5000)}\n` })).toThrow(/nested deeper than 32 levels/);
  });

  it('refuse a JSONL line nested 10,000 deep or holding 1e999, naming the line', () => {
    expect(() => parseJsonl({ path: 'a.jsonl', content: `{"id":1}\n{"meta":${nestedText(10_000)}}\n` })).toThrow('a.jsonl:2: nested deeper than 32 levels');
    expect(() => parseJsonl({ path: 'a.jsonl', content: '{"meta":{"x":1e999}}' })).toThrow('a.jsonl:1: meta.x: is not a finite number');
  });
});

describe('error messages', () => {
  it('look inside unions: expected types, or the branch that got furthest', () => {
    const S = z.object({ label: z.union([z.string(), z.number()]), r: z.union([z.object({ a: z.object({ b: z.number() }) }), z.array(z.number())]) });
    const r = S.safeParse({ r: { a: { b: 'x' } } });
    const explained = r.error!.issues.map(explainIssue);
    expect(explained).toEqual([
      { path: ['label'], message: 'Invalid input: expected string or number, received undefined' },
      { path: ['r', 'a', 'b'], message: 'Invalid input: expected number, received string' },
    ]);
  });
});

function nestedText(n: number): string {
  return '['.repeat(n) + ']'.repeat(n);
}
