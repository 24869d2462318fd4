import { describe, expect, it } from 'vitest';
import { parsePuzzleFiles } from '../../src/services/puzzles.ts';
import { badInputMessage } from '../helpers/errors.ts';

/**
 * A YAML truth's unquoted piece id 007 is the number 7 to the YAML parser: stored as "7", so a model
 * answering 007 scored it as an unknown id (exit 0). A numeric scalar whose text is not String(number)
 * (007, 1e3, 0x1F, +5, 5.0) is refused naming the cell and the text; 7, -3 and quoted ids are kept.
 */
const yaml = (cells: string) => [{ path: 'p.yaml', content: `rows: 1\ncols: 2\nlayout:\n  - [${cells}]\n` }];

describe('YAML truth ids written as numbers whose text is not the number', () => {
  for (const text of ['007', '1e3', '0x1F', '+5', '5.0']) {
    it(`refuses ${text}`, () => {
      const m = badInputMessage(() => parsePuzzleFiles(yaml(`a, ${text}`)));
      expect(m).toContain(`p.yaml:4: layout[0][1]: piece id ${text} is read by YAML as the number`);
      expect(m).toContain(`quote it ("${text}")`);
    });
  }
  it('keeps plain numbers and quoted ids', () => {
    expect(parsePuzzleFiles(yaml('7, -3'))[0]!.truth.layout).toEqual([['7', '-3']]);
    expect(parsePuzzleFiles(yaml('"007", \'1e3\''))[0]!.truth.layout).toEqual([['007', '1e3']]);
  });
});
