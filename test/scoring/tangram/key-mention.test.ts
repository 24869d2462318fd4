import { describe, expect, it } from 'vitest';
import { CLASSIC_SQUARE } from '../../../src/scoring/tangram/pieces.ts';
import { verifyTangram } from '../../../src/scoring/tangram/verify.ts';

/**
 * The answer is the last fenced block, else the last top-level {…}, that HOLDS "pieces" as a key. Before,
 * any mention of the word counted: a closing fence of prose ("All 7 pieces are used once.") or a brace
 * in prose after the JSON ("{the pieces} fit") was taken for the answer, and a valid assembly scored as
 * a syntax error.
 */
const SQUARE = { outline: [[0, 0], [1, 0], [1, 1], [0, 1]] };
const good = JSON.stringify({ pieces: CLASSIC_SQUARE.map((p, i) => ({ id: i, ...p })) }, null, 1);

describe('verifyTangram: the answer is the block that has "pieces" as a key', () => {
  it.each([
    ['a later fence of prose that mentions pieces', `Here:\n\`\`\`json\n${good}\n\`\`\`\nCheck:\n\`\`\`\nAll 7 pieces are used once.\n\`\`\`\n`],
    ['a brace in prose after unfenced JSON', `${good}\nNote: {the pieces} fit.`],
    ['an unquoted key (mended by jsonrepair) before prose braces', `${good.replace('"pieces"', 'pieces')}\n{all pieces placed}`],
  ])('%s: the JSON is read', (_, text) => {
    const r = verifyTangram(SQUARE, text);
    expect(r.syntaxError).toBe(false);
    expect(r.success).toBe(true);
    expect(r.iou).toBe(1);
  });

  it('the last block holding the key still wins over an earlier one', () => {
    const wrong = JSON.stringify({ pieces: CLASSIC_SQUARE.slice(0, 6).map((p, i) => ({ id: i, ...p })) });
    expect(verifyTangram(SQUARE, `\`\`\`json\n${good}\n\`\`\`\n\`\`\`json\n${wrong}\n\`\`\``)).toMatchObject({ syntaxError: true });
    expect(verifyTangram(SQUARE, `\`\`\`json\n${wrong}\n\`\`\`\n\`\`\`json\n${good}\n\`\`\``)).toMatchObject({ success: true });
  });

  it('prose alone is still no answer', () => {
    expect(verifyTangram(SQUARE, 'I placed all seven pieces {roughly} in a square.').problems).toEqual(['no JSON object with "pieces" found']);
  });
});
