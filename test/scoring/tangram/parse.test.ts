import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAssayError } from '../../../src/domain/errors.ts';
import { parseTangramAnswer, parseTangramTarget } from '../../../src/scoring/tangram/parse.ts';
import { verifyTangram } from '../../../src/scoring/tangram/verify.ts';
import { FIXTURES } from '../../helpers/cli.ts';

const SQUARE = { outline: [[0, 0], [1, 0], [1, 1], [0, 1]] as [number, number][] };
const text = readFileSync(`${FIXTURES}tangram/square.answer.txt`, 'utf8');
const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);

const syntaxResult = (problems: string[]) => ({
  status: 'syntax_error',
  syntaxError: true,
  rigidError: null,
  overlapError: null,
  connectivityError: null,
  iou: null,
  hausdorff: null,
  validPass: false,
  success: false,
  problems,
});

describe('parseTangramAnswer: where the JSON is', () => {
  it('reads the last fenced block that mentions pieces, ignoring earlier drafts', () => {
    const draft = '```json\n{"pieces": []}\n```\nOops, corrected:\n';
    const r = parseTangramAnswer(draft + text);
    expect(r.status).toBe('repaired');
    expect(r.pieces?.map((p) => p.id).join('')).toBe('ABCDEFG');
  });

  it('reads a bare object in prose, and bare expressions in arrays', () => {
    const bare = json.replaceAll('"\\frac{1}{2}"', '\\frac{1}{2}').replace('[0.75, 0.25]]}', '[3/4, \\frac{\\sqrt{2}}{4}*\\sqrt{2}/2]]}');
    const r = parseTangramAnswer(`My answer is ${bare} — done.`);
    expect(r.problems).toEqual(['quoted bare numeric expressions']);
    expect(r.pieces?.[4]?.vertices[2]).toEqual([0.75, expect.closeTo(0.25, 15)]);
  });

  it('properly escaped LaTeX needs no repair', () => {
    const r = parseTangramAnswer(json.replaceAll('\\frac', '\\\\frac'));
    expect(r).toMatchObject({ status: 'ok', problems: [] });
    expect(r.pieces?.[0]?.vertices[2]).toEqual([0.5, 0.5]);
  });
});

describe('malformed answers give a status, never a crash', () => {
  it('truncated JSON: jsonrepair closes it; a piece cut short is a syntax error', () => {
    const cut = json.slice(0, json.indexOf('"G"') - 10);
    const r = verifyTangram(SQUARE, cut);
    expect(r.status).toBe('syntax_error');
    expect(r.problems.at(-1)).toBe('expected 7 pieces, found 6');
    expect(r.problems.some((p) => p.startsWith('jsonrepair fixed invalid JSON'))).toBe(true);
  });

  it('truncated JSON that loses only its closing brackets is repaired and still a success', () => {
    const r = verifyTangram(SQUARE, json.slice(0, json.lastIndexOf(']')));
    expect(r.status).toBe('repaired');
    expect(r.success).toBe(true);
  });

  it('six pieces', () => {
    const six = JSON.parse(json.replaceAll('\\frac{1}{2}', '0.5')) as { pieces: unknown[] };
    six.pieces.pop();
    expect(verifyTangram(SQUARE, JSON.stringify(six))).toEqual(syntaxResult(['expected 7 pieces, found 6']));
  });

  it('an unknown piece type, and a wrong mix of known types', () => {
    const unknown = json.replace('"type": "square"', '"type": "rhombus"');
    expect(verifyTangram(SQUARE, unknown).problems.at(-1)).toBe(
      'piece F: unknown type "rhombus" (known: large_triangle, medium_triangle, small_triangle, square, parallelogram)',
    );
    const mix = json.replace('"type": "square"', '"type": "small_triangle"');
    expect(verifyTangram(SQUARE, mix).problems.slice(-2)).toEqual(['expected 2 small_triangle, found 3', 'expected 1 square, found 0']);
  });

  it('NaN, null and unreadable coordinates', () => {
    const nan = verifyTangram(SQUARE, json.replace('[[1, 1], [0.5, 1]', '[[1, NaN], [0.5, 1]'));
    expect(nan.status).toBe('syntax_error');
    expect(nan.problems.at(-1)).toBe("piece C: vertex 1: y 'NaN': unexpected 'N'");
    const nul = verifyTangram(SQUARE, json.replace('[[1, 1], [0.5, 1]', '[[1, null], [0.5, 1]'));
    expect(nul.problems.at(-1)).toBe('piece C: vertex 1: y null is not a number or an expression');
    const short = verifyTangram(SQUARE, json.replace('[[1, 1], [0.5, 1]', '[[1], [0.5, 1]'));
    expect(short.problems.at(-1)).toBe('piece C: vertex 1: expected [x, y], got [1]');
  });

  it.each([
    ['', 'no JSON object with "pieces" found'],
    ['I cannot solve this puzzle.', 'no JSON object with "pieces" found'],
    ['{"pieces": 7}', '"pieces" is not an array'],
    ['{"pieces": [1, 2, 3, 4, 5, 6, 7]}', 'piece 1: not an object'],
  ])('%j → syntax error', (answer, problem) => {
    const r = verifyTangram(SQUARE, answer);
    expect(r.syntaxError).toBe(true);
    expect(r.problems).toContain(problem);
  });

  it('a piece with neither vertices nor a light-form placement', () => {
    const r = parseTangramAnswer(json.replace(/"vertices": \[\[1, 1\], \[0\.5, 1\], \[1, 0\.5\]\]/, '"colour": "red"'));
    expect(r.problems).toEqual(['escaped LaTeX backslashes inside JSON strings', 'piece C: needs "vertices", or "rotation"/"translation" (light form)']);
  });
});

describe('parseTangramTarget', () => {
  const bad = (v: unknown) => {
    try {
      parseTangramTarget(v, 'T.json');
    } catch (e) {
      return isAssayError(e) && e.code === 'bad_input' ? e.message : 'wrong error';
    }
    return 'no error';
  };
  it('accepts exact expressions and drops a repeated closing vertex', () => {
    expect(parseTangramTarget({ outline: [[0, 0], ['\\sqrt{2}', 0], [0, '1/2'], [0, 0]] }).outline).toEqual([[0, 0], [Math.SQRT2, 0], [0, 0.5]]);
  });
  it('rejects what is not one simple polygon as bad input', () => {
    expect(bad([[0, 0]])).toBe('T.json: expected {"outline": [[x, y], ...]}');
    expect(bad({ outline: [[0, 0], [1, 0]] })).toBe('T.json: outline needs at least 3 corners enclosing an area');
    expect(bad({ outline: [[0, 0], [2, 2], [2, 0], [0, 1]] })).toBe('T.json: outline crosses itself (it must be one simple polygon)');
    expect(bad({ outline: [[0, 0], [1, 'x'], [0, 1]] })).toBe("T.json: outline vertex 2: y 'x': unexpected 'x'");
    expect(bad({ outline: [[0, 0], [1e300, 0], [0, 1]] })).toBe('T.json: outline vertex 2 lies beyond ±1000000');
  });
});

describe('never a crash (fast-check)', () => {
  it('truncations, deletions and junk inserted anywhere in a valid answer always give a result', () => {
    const junk = fc.constantFrom('{', '}', '[', ']', ',', '"', '\\', 'NaN', '\\frac{', '1e999', '-', ' ', '```', 'null', '\\sqrt{-1}');
    fc.assert(
      fc.property(fc.nat(text.length), fc.nat(text.length), fc.nat(40), junk, (at, cut, del, bit) => {
        const mangled = text.slice(0, at) + bit + text.slice(Math.min(text.length, at + del), Math.max(at, cut));
        const r = verifyTangram(SQUARE, mangled);
        expect(['ok', 'repaired', 'syntax_error']).toContain(r.status);
        expect(r.syntaxError).toBe(r.status === 'syntax_error');
        expect(r.success).toBe(r.validPass && r.iou !== null && r.iou >= 0.99);
        if (r.iou !== null) expect(r.iou).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300, seed: 3 },
    );
  });
});

describe('never NaN (fast-check)', () => {
  it('random, degenerate, self-crossing or huge pieces give finite metrics or null', () => {
    const coord = fc.oneof(fc.double({ min: -3, max: 3, noNaN: true }), fc.constantFrom(0, 1, 1e-320, 1e300, -1e300, 0.5));
    const piece = (type: string) => fc.array(fc.tuple(coord, coord), { minLength: 3, maxLength: 5 }).map((vertices) => ({ type, vertices }));
    const types = ['large_triangle', 'large_triangle', 'medium_triangle', 'small_triangle', 'small_triangle', 'square', 'parallelogram'];
    fc.assert(
      fc.property(fc.tuple(...types.map(piece)), (pieces) => {
        const r = verifyTangram(SQUARE, JSON.stringify({ pieces }));
        expect(r.syntaxError).toBe(false);
        if (r.iou !== null) expect(r.iou >= 0 && r.iou <= 1 + 1e-9).toBe(true);
        if (r.hausdorff !== null) expect(Number.isFinite(r.hausdorff) && r.hausdorff >= 0).toBe(true);
        expect(r.rigidError).toBe(true);
      }),
      { numRuns: 150, seed: 5 },
    );
  });
});
