import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGridTruth } from '../../../src/domain/grid.ts';
import { parseGridAnswer, scoreGrid } from '../../../src/scoring/grid/index.ts';
import { numberedTruth, truthOf } from './helpers.ts';

const t23 = truthOf('a b c', 'd e f');
const TRUE = [['a', 'b', 'c'], ['d', 'e', 'f']];
const cellsOf = (answer: string) => parseGridAnswer(t23, answer);

describe('parseGridAnswer: accepted forms', () => {
  it.each([
    ['plain spaces', 'a b c\nd e f'],
    ['commas', 'a, b, c\nd, e, f'],
    ['pipes (markdown table rows)', '| a | b | c |\n| d | e | f |'],
    ['fenced, with reasoning around it', 'I matched the sky first.\n\n```\na b c\nd e f\n```\nDone.'],
    ['"Row n:" labels', 'Row 1: a b c\nRow 2: d e f'],
    ['numbered list', '1. a b c\n2. d e f'],
    ['bulleted list', '- a b c\n- d e f'],
    ['<answer> tags on the rows', '<answer>a b c\nd e f</answer>'],
    ['label before the row', 'Final: a b c\nd e f'],
    ['quoted JSON rows inside prose', 'Grid:\n[\n  ["a", "b", "c"],\n  ["d", "e", "f"]\n]\nThanks'],
    ['one-line JSON array inside prose', 'My answer is [["a","b","c"],["d","e","f"]] as requested.'],
    ['JSON 2-D array', '[["a","b","c"],["d","e","f"]]'],
    ['wrapped JSON', '{"grid": [["a","b","c"],["d","e","f"]]}'],
    ['JSON mapping', '{"a":[0,0],"b":[0,1],"c":[0,2],"d":[1,0],"e":[1,1],"f":[1,2]}'],
    ['fenced JSON mapping after prose', 'Here:\n```json\n{"a":[0,0],"b":[0,1],"c":[0,2],\n"d":[1,0],"e":[1,1],"f":[1,2]}\n```'],
    ['CRLF line ends, tabs', 'a\tb\tc\r\nd\te\tf\r\n'],
  ])('%s', (_, answer) => {
    expect(cellsOf(answer)).toEqual({ status: 'valid', problems: [], cells: TRUE });
  });

  it('the last complete block wins; a later incomplete block does not spoil it', () => {
    const answer = 'First try:\nb a c\nd e f\n\nCorrected:\na b c\nd e f\n\nPartial recap:\na b c\n';
    expect(cellsOf(answer).cells).toEqual(TRUE);
    expect(cellsOf('a b c\nd e f\n\nb a c\nd e f').cells).toEqual([['b', 'a', 'c'], ['d', 'e', 'f']]);
  });

  it('a JSON mapping or grid written after a text block is the later answer and wins', () => {
    // Before: the text block was always read first, so a corrected final answer given as a mapping was ignored
    // and the first attempt scored (direct 1 for a final answer whose every piece is misplaced).
    const REV = [['f', 'e', 'd'], ['c', 'b', 'a']];
    const rev = '{"f":[0,0],"e":[0,1],"d":[0,2],"c":[1,0],"b":[1,1],"a":[1,2]}';
    expect(cellsOf(`First try:\na b c\nd e f\n\nFinal answer:\n\`\`\`json\n${rev}\n\`\`\``)).toEqual({ status: 'valid', problems: [], cells: REV });
    expect(cellsOf(`First try:\na b c\nd e f\n\nFinal answer: ${rev}`).cells).toEqual(REV);
    expect(cellsOf('a b c\nd e f\nFinal:\n```json\n{\n  "f": [0, 0], "e": [0, 1], "d": [0, 2],\n  "c": [1, 0], "b": [1, 1], "a": [1, 2]\n}\n```').cells).toEqual(REV);
    // The text block after the JSON is the later one; JSON that places no piece is no answer.
    expect(cellsOf(`Try: ${rev}\nFinal:\na b c\nd e f`).cells).toEqual(TRUE);
    expect(cellsOf('a b c\nd e f\nConfidence: {"score": [0, 1]}')).toEqual({ status: 'valid', problems: [], cells: TRUE });
    // A later mapping's own problems are reported (and only its own).
    expect(cellsOf('b a c\nd e f\nFinal: {"a":[0,0],"b":[0,1],"c":[0,2],"d":[1,0],"e":[1,1]}')).toEqual({
      status: 'repaired',
      problems: ["1 piece not placed: 'f'"],
      cells: [['a', 'b', 'c'], ['d', 'e', null]],
    });
  });

  it('JSON numbers are ids as strings', () => {
    const t = parseGridTruth({ rows: 2, cols: 2, layout: [[1, 2], ['3', 4]] }, 'T');
    expect(t.layout).toEqual([['1', '2'], ['3', '4']]);
    expect(parseGridAnswer(t, '[[1,2],[3,4]]')).toEqual({ status: 'valid', problems: [], cells: [['1', '2'], ['3', '4']] });
    expect(parseGridAnswer(t, '[["1",2],[3,"4"]]').status).toBe('valid');
    expect(parseGridAnswer(t, '1 2\n3 4').cells).toEqual([['1', '2'], ['3', '4']]);
    expect(scoreGrid(t, '{"4":[0,0],"2":[0,1],"3":[1,0],"1":[1,1]}').direct).toBe(0.5);
  });

  it('list markers "1)" and "(1)", a markdown table whose header is the first row, ids that look like labels', () => {
    // Before: each of these correct answers was `invalid` with every metric 0 (the marker read as a fifth cell, the
    // table rule split the table, "row1 " was stripped as a "Row 1" label).
    for (const answer of ['1) a b c\n2) d e f', '(1) a b c\n(2) d e f', '| a | b | c |\n|---|---|---|\n| d | e | f |', '| a | b | c |\n|:--|:-:|--:|\n| d | e | f |']) {
      expect(cellsOf(answer), answer).toEqual({ status: 'valid', problems: [], cells: TRUE });
    }
    const nums = numberedTruth(3, 3);
    const NUMS = [['0', '1', '2'], ['3', '4', '5'], ['6', '7', '8']];
    expect(parseGridAnswer(nums, '1) 0 1 2\n2) 3 4 5\n3) 6 7 8')).toEqual({ status: 'valid', problems: [], cells: NUMS });
    expect(parseGridAnswer(nums, '1. 0 1 2\n2. 3 4 5\n3. 6 7 8').cells).toEqual(NUMS);
    // "(1)" around a known id is that id, not a marker: four ids for three columns stay a wrong shape.
    expect(parseGridAnswer(nums, '(1) 0 1 2\n(2) 3 4 5\n(3) 6 7 8').status).toBe('invalid');
    const rowIds = truthOf('row1 row2', 'row3 row4');
    expect(parseGridAnswer(rowIds, 'row1 row2\nrow3 row4')).toEqual({ status: 'valid', problems: [], cells: [['row1', 'row2'], ['row3', 'row4']] });
    expect(parseGridAnswer(rowIds, 'Row 1: row1 row2\nRow 2: row3 row4').status).toBe('valid');
    // A horizontal rule (no pipes) still separates two blocks, so the last one wins.
    expect(cellsOf('b a c\nd e f\n---\na b c\nd e f').cells).toEqual(TRUE);
  });

  it('"1:" row numbers on a puzzle whose ids are numbers: the number is a marker, not a mapping key', () => {
    // Before: "1: 0 1 2" was taken for a mapping line ("id": …) because 1 is a piece id, so every row was dropped
    // and a perfect answer to a numbered puzzle (the bundled 4×4 has ids 0–15) was invalid with every metric 0,
    // while "1. 0 1 2", and "1: 10 11 12" on a puzzle without a piece 1, were read.
    const nums = numberedTruth(3, 3);
    const NUMS = [['0', '1', '2'], ['3', '4', '5'], ['6', '7', '8']];
    expect(parseGridAnswer(nums, 'Final:\n1: 0 1 2\n2: 3 4 5\n3: 6 7 8')).toEqual({ status: 'valid', problems: [], cells: NUMS });
    expect(parseGridAnswer(nums, '0: 0 1 2\n1: 3 4 5\n2: 6 7 8').cells).toEqual(NUMS);
    expect(parseGridAnswer(nums, '1: 1 0 2\n2: 3 4 5\n3: 6 7 8').cells).toEqual([['1', '0', '2'], ['3', '4', '5'], ['6', '7', '8']]);
    // a mapping written one id per line stays no grid row (its value is bracketed), so the mapping is read
    expect(parseGridAnswer(numberedTruth(1, 2), 'Placement:\n1: [0, 0]').status).toBe('invalid');
  });

  it('a markdown table whose header numbers the columns is read from its body, though the numbers are piece ids', () => {
    // Before: the header "1 2 3" read as a fourth row of known ids, so a perfect answer was a wrong shape (invalid, 0).
    const nums = numberedTruth(3, 3);
    const NUMS = [['0', '1', '2'], ['3', '4', '5'], ['6', '7', '8']];
    const table = '| 1 | 2 | 3 |\n|---|---|---|\n| 0 | 1 | 2 |\n| 3 | 4 | 5 |\n| 6 | 7 | 8 |';
    expect(parseGridAnswer(nums, table)).toEqual({ status: 'valid', problems: [], cells: NUMS });
    // the header as the first row still works, and four body rows under a header stay a wrong shape
    expect(parseGridAnswer(nums, '| 0 | 1 | 2 |\n|---|---|---|\n| 3 | 4 | 5 |\n| 6 | 7 | 8 |').cells).toEqual(NUMS);
    expect(parseGridAnswer(nums, `${table}\n| 0 | 1 | 2 |`).status).toBe('invalid');
  });

  it('a lone numeric id is one cell, not JSON to reject', () => {
    const t = parseGridTruth({ rows: 1, cols: 1, layout: [[42]] }, 'T');
    expect(parseGridAnswer(t, '42')).toEqual({ status: 'valid', problems: [], cells: [['42']] });
  });
});

describe('parseGridAnswer: problems are reported, not hidden', () => {
  it('unknown ids and duplicates leave blank cells (first occurrence kept)', () => {
    expect(cellsOf('a b c\nd a zz')).toEqual({
      status: 'repaired',
      problems: [
        "duplicate id 'a' at (1,1) (first at (0,0)): cell left blank",
        "unknown id 'zz' at (1,2): cell left blank",
        "2 pieces not placed: 'e', 'f'",
      ],
      cells: [['a', 'b', 'c'], ['d', null, null]],
    });
  });

  it('placeholders are blank cells', () => {
    expect(cellsOf('a ? c\nd e _')).toMatchObject({ status: 'repaired', cells: [['a', null, 'c'], ['d', 'e', null]] });
    expect(cellsOf('[["a", null, "c"], ["d", "e", ""]]').cells).toEqual([['a', null, 'c'], ['d', 'e', null]]);
  });

  it('mapping: an id given twice keeps its first cell, the later one reported (design §2.2; JSON.parse kept the last, a valid full-marks answer)', () => {
    // The answer's last word for 'a' is (0,0), where 'a' belongs: read by JSON.parse it was valid and every metric 1.
    const answer = '{"a":[0,1],"a":[0,0],"b":[0,1],"c":[0,2],"d":[1,0],"e":[1,1],"f":[1,2]}';
    const r = cellsOf(answer);
    expect(r.status).toBe('repaired');
    expect(r.problems).toEqual([
      "id 'a' given twice in the mapping: the first kept, [0,0] ignored",
      "ids 'a' and 'b' both map to (0,1): cell left blank, neither placed",
      "2 pieces not placed: 'a', 'b'",
    ]);
    expect(r.cells).toEqual([[null, null, 'c'], ['d', 'e', 'f']]);
    expect(scoreGrid(t23, answer).direct).toBeCloseTo(4 / 6, 12);
    // The same inside prose and a fence, and a value that is itself an object or holds commas and brackets.
    expect(cellsOf(`Here it is:\n\`\`\`json\n${answer}\n\`\`\``).cells).toEqual(r.cells);
    expect(cellsOf('{"a":[0,0],"note":{"x":[1,2],"a":"]"},"a":[1,1],"b":[0,1],"c":[0,2],"d":[1,0],"e":[1,1],"f":[1,2]}').problems).toContain("id 'a' given twice in the mapping: the first kept, [1,1] ignored");
  });

  it('mapping: keys that are one id once trimmed (" a" and "a") are that id given twice: the first cell kept', () => {
    // Before: both went in, 'a' was scored at its later cell (0,1) while (0,0) still held it too, unreported.
    const answer = '{"a":[0,0]," a":[0,1],"c":[0,2],"d":[1,0],"e":[1,1],"f":[1,2]}';
    const r = cellsOf(answer);
    expect(r.status).toBe('repaired');
    expect(r.problems).toEqual(["id 'a' given twice in the mapping: the first kept, [0,1] ignored", "1 piece not placed: 'b'"]);
    expect(r.cells).toEqual([['a', null, 'c'], ['d', 'e', 'f']]);
    const s = scoreGrid(t23, answer);
    expect(s.direct).toBeCloseTo(5 / 6, 12);
    // the pairs ab, bc and be have b unplaced; ad, cf, de, ef are home: 4 of 7
    expect(s.neighbour).toBeCloseTo(4 / 7, 12);
    expect(s.byPosition).toEqual({ corner: 1, edge: 0.5, interior: null });
  });

  it('mapping: of " 1" and "1", the one first in the text is kept, though JSON objects list integer keys first', () => {
    const answer = '{"0":[0,0]," 1":[0,1],"1":[0,2],"2":[0,2]}';
    const r = parseGridAnswer(numberedTruth(1, 3), answer);
    expect(r.problems).toEqual(["id '1' given twice in the mapping: the first kept, [0,2] ignored"]);
    expect(r.cells).toEqual([['0', '1', '2']]);
    expect(scoreGrid(numberedTruth(1, 3), answer)).toMatchObject({ status: 'repaired', direct: 1, neighbour: 1 });
  });

  it('mapping: out of range, contested cells, unknown ids, malformed cells', () => {
    const r = cellsOf('{"a":[0,0],"b":[0,1],"c":[2,0],"d":[1,0],"e":[1,0],"f":"x","q":[1,2]}');
    expect(r.status).toBe('repaired');
    expect(r.problems).toEqual([
      "id 'c' maps to (2,0), outside the 2×3 grid: not placed",
      "ids 'd' and 'e' both map to (1,0): cell left blank, neither placed",
      'id \'f\' maps to "x", not [row, col]: not placed',
      "unknown id 'q' in the mapping: ignored",
      "4 pieces not placed: 'c', 'd', 'e', 'f'",
    ]);
    expect(r.cells).toEqual([['a', 'b', null], [null, null, null]]);
  });

  it.each([
    ['wrong shape (one row)', 'a b c', 'wrong shape: the last grid-like block has 1 lines (of 3 ids), expected 2 lines of 3 ids'],
    ['transposed', 'a d\nb e\nc f', 'wrong shape: the last grid-like block has 3 lines (of 2, 2, 2 ids), expected 2 lines of 3 ids'],
    ['ragged JSON', '[["a","b","c"],["d","e"]]', 'wrong shape: JSON array has 2 rows (of 3, 2 ids), expected 2 rows of 3 ids'],
    ['flat JSON list', '["a","b","c","d","e","f"]', 'JSON array is not a 2-D array of ids (expected 2 rows of 3 ids)'],
    ['JSON object of another kind', '{"answer": "a b c"}', 'JSON object is neither a mapping {"id": [row, col]} nor {"grid": [[…]]}'],
    ['prose only', 'I could not solve this puzzle.', 'no grid of piece ids found (expected 2 lines of 3 ids)'],
    ['empty', '', 'no grid of piece ids found (expected 2 lines of 3 ids)'],
  ])('%s → invalid', (_, answer, problem) => {
    expect(cellsOf(answer)).toEqual({ status: 'invalid', problems: [problem], cells: [] });
    const s = scoreGrid(t23, answer);
    expect([s.direct, s.exactMatch, s.neighbour, s.adjacency, s.proximity]).toEqual([0, 0, 0, 0, 0]);
  });

  it('describes odd cells without serialising them (deep nesting cannot overflow the stack)', () => {
    const deep = `${'['.repeat(100_000)}"e"${']'.repeat(100_000)}`;
    const answer = `[["a","b",{"x":1}],["d",true,${deep}]]`;
    const r = cellsOf(answer);
    expect(r.status).toBe('repaired');
    expect(r.problems).toEqual([
      'cell (0,2) holds an object, not an id: cell left blank',
      'cell (1,1) holds true, not an id: cell left blank',
      'cell (1,2) holds an array of 1, not an id: cell left blank',
      "3 pieces not placed: 'c', 'e', 'f'",
    ]);
    const nested = '['.repeat(200_000) + ']'.repeat(200_000);
    expect(cellsOf(nested).status).toBe('invalid');
    expect(cellsOf(`{"a": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`).status).toBe('invalid');
  });

  it('caps a long problem list', () => {
    const t = numberedTruth(10, 10);
    const junk = Array.from({ length: 10 }, (_, r) => Array.from({ length: 10 }, (_, c) => (c === 0 ? String(r) : `q${r}${c}`)).join(' '));
    // Lines of 1 known id and 9 unknown tokens are not grid-like; make every other token known.
    const half = Array.from({ length: 10 }, (_, r) => Array.from({ length: 10 }, (_, c) => (c % 2 ? `q${r}${c}` : String(r * 10 + c))).join(' '));
    expect(parseGridAnswer(t, junk.join('\n')).status).toBe('invalid');
    const r = parseGridAnswer(t, half.join('\n'));
    expect(r.status).toBe('repaired');
    expect(r.problems).toHaveLength(51);
    expect(r.problems[50]).toBe('… and 1 more problem');
  });
});

describe('parseGridAnswer never throws', () => {
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  const noise = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.array(fc.oneof(fc.constantFrom(...ids, ' ', ',', '|', '\n', '[', ']', '{', '}', '"', ':', '```', '-', '1.', 'Row 1:', '<a>'), fc.string({ maxLength: 4 })), { maxLength: 80 }).map((a) => a.join('')),
    fc.json().map((j) => j),
  );
  it('on arbitrary text, returns a status and cells of the right shape', () => {
    fc.assert(
      fc.property(noise, (text) => {
        const r = parseGridAnswer(t23, text);
        expect(['valid', 'repaired', 'invalid']).toContain(r.status);
        if (r.status === 'invalid') expect(r.cells).toEqual([]);
        else expect(r.cells.map((row) => row.length)).toEqual([3, 3]);
        if (r.status === 'valid') expect(r.problems).toEqual([]);
        else expect(r.problems.length).toBeGreaterThan(0);
        const s = scoreGrid(t23, text);
        for (const v of [s.direct, s.neighbour!, s.adjacency!, s.exactMatch]) expect(v >= 0 && v <= 1).toBe(true);
      }),
      { numRuns: 1000, seed: 42 },
    );
  });
});
