import { describe, expect, it } from 'vitest';
import { CLASSIC_SQUARE } from '../../../src/scoring/tangram/pieces.ts';
import { verifyTangram } from '../../../src/scoring/tangram/verify.ts';

/**
 * An answer whose JSON gives a key twice in one object — "pieces" twice, or a piece's "vertices" or
 * "type" twice — cannot say which it meant. JSON.parse kept the last silently: an answer listing a wrong
 * assembly and then the right one in one object scored status ok, success, no problem named. It is a
 * syntax error naming the key's path, as a key given twice is everywhere else assay reads JSON.
 */
const SQUARE = { outline: [[0, 0], [1, 0], [1, 1], [0, 1]] };
const good = CLASSIC_SQUARE.map((p, i) => JSON.stringify({ id: i, ...p }));
const halved = CLASSIC_SQUARE.map((p, i) => JSON.stringify({ id: i, type: p.type, vertices: p.vertices.map(([x, y]) => [x / 2, y / 2]) }));

describe('verifyTangram: a key given twice in the answer', () => {
  it.each([
    ['"pieces" twice', `{"pieces":[${halved.join(',')}],"pieces":[${good.join(',')}]}`, 'pieces'],
    ['a piece\'s "vertices" twice', `{"pieces":[${good.map((g, i) => (i === 5 ? g.replace('"vertices"', '"vertices":[[0,0],[9,0],[9,9],[0,9]],"vertices"') : g)).join(',')}]}`, 'pieces[5].vertices'],
    ['a piece\'s "type" twice', `{"pieces":[${good.map((g, i) => (i === 0 ? g.replace('"type"', '"type":"square","type"') : g)).join(',')}]}`, 'pieces[0].type'],
    ['in a fenced block after prose', `Here it is:\n\`\`\`json\n{"pieces":[${halved.join(',')}],\n"pieces":[${good.join(',')}]}\n\`\`\``, 'pieces'],
  ])('%s is a syntax error naming the key', (_, text, path) => {
    const r = verifyTangram(SQUARE, text);
    expect(r.status).toBe('syntax_error');
    expect(r.syntaxError).toBe(true);
    expect(r.success).toBe(false);
    expect(r.problems.join('\n')).toContain(`${path}: key given twice`);
  });

  it('the same answer with each key once still scores', () => {
    expect(verifyTangram(SQUARE, `{"pieces":[${good.join(',')}]}`)).toMatchObject({ status: 'ok', success: true, iou: 1 });
  });

  it('a key given twice is found after jsonrepair too (trailing comma)', () => {
    const r = verifyTangram(SQUARE, `{"pieces":[${halved.join(',')}],"pieces":[${good.join(',')},]}`);
    expect(r.status).toBe('syntax_error');
    expect(r.problems.join('\n')).toContain('pieces: key given twice');
  });
});
