import { describe, expect, it } from 'vitest';
import { compareOutput, fill, parseConsole, type Bindings } from './console.ts';
import { fences } from './markdown.ts';

/** The doc-example checker itself: what it reads as a command, and that it fails on any real difference. */

describe('parseConsole', () => {
  it('splits commands from their output, joining `\\` and `|` continuations and here-documents', () => {
    const steps = parseConsole([
      '$ assay score grid --truth t.json \\',
      '    --answer a.txt | tail -1',
      'direct 1',
      '$ cat > f.jsonl <<\'EOF\'',
      '{"id":"q1"}',
      'EOF',
      '$ echo $?',
      '0',
    ]);
    expect(steps).toEqual([
      { command: 'assay score grid --truth t.json \\\n    --answer a.txt | tail -1', expected: ['direct 1'] },
      { command: "cat > f.jsonl <<'EOF'\n{\"id\":\"q1\"}\nEOF", expected: [] },
      { command: 'echo $?', expected: ['0'] },
    ]);
  });

  it('refuses output before the first command and an unterminated here-document', () => {
    expect(() => parseConsole(['stray', '$ ls'])).toThrow(/before the first/);
    expect(() => parseConsole(["$ cat > f <<'EOF'", 'x'])).toThrow(/here-document/);
  });
});

describe('fences', () => {
  it('reads the marker right above a block (blank lines between allowed), and indented blocks', () => {
    const text = ['<!-- example: not run — needs a key -->', '', '```console', '$ a', '```', 'prose', '  ```console', '  $ b', '  out', '  ```'].join('\n');
    expect(fences(text)).toEqual([
      { lang: 'console', line: 3, body: ['$ a'], marker: 'not run — needs a key' },
      { lang: 'console', line: 7, body: ['$ b', 'out'], marker: null },
    ]);
  });
});

describe('compareOutput', () => {
  const ok = (expected: string[], actual: string, bindings: Bindings = new Map()) => compareOutput(expected, actual, bindings).ok;

  it('is exact apart from trailing whitespace', () => {
    expect(ok(['a  1', 'b  2'], 'a  1  \nb  2\n\n')).toBe(true);
    expect(ok(['a  1', 'b  2'], 'a  1\nb  3\n')).toBe(false);
    expect(ok(['a  1'], ' a  1\n')).toBe(false);
    expect(ok(['a'], 'a\nb\n')).toBe(false);
  });

  it('binds a key to the real one, with its prefix, and hands both to later commands', () => {
    const bindings: Bindings = new Map();
    const docKey = 'assay_3f9c01aa_Jd0vX8cFq2mZpL4tR7yW1bN6hK9sD3gA5eU0iO2lC8Q';
    const realKey = 'assay_9b1cc2dd__Qzg35zrC5wtoeStHPyneYMzzkCr4JZFo-BJ1B1uIoM';
    expect(ok([docKey, '', 'prefix 3f9c01aa, scopes write'], `${realKey}\n\nprefix 9b1cc2dd, scopes write\n`, bindings)).toBe(true);
    expect(fill('assay keys revoke 3f9c01aa', bindings)).toBe('assay keys revoke 9b1cc2dd');
    expect(ok(['revoked 3f9c01aa'], 'revoked 9b1cc2dd\n', bindings)).toBe(true);
    expect(ok(['revoked 3f9c01aa'], 'revoked 00000000\n', bindings)).toBe(false);
  });

  it("refuses a prefix that is not the key's own", () => {
    const docKey = 'assay_3f9c01aa_Jd0vX8cFq2mZpL4tR7yW1bN6hK9sD3gA5eU0iO2lC8Q';
    const realKey = 'assay_9b1cc2dd__Qzg35zrC5wtoeStHPyneYMzzkCr4JZFo-BJ1B1uIoM';
    expect(ok([docKey, 'prefix 3f9c01aa'], `${realKey}\nprefix 12345678\n`)).toBe(false);
  });

  it('lets timestamps differ, and nothing else next to them', () => {
    expect(ok(['created 2026-12-01T09:12:03.000Z'], 'created 2027-01-02T10:00:00.123Z\n')).toBe(true);
    expect(ok(['created 2026-12-01T09:12:03.000Z  yes'], 'created 2027-01-02T10:00:00.123Z  no\n')).toBe(false);
  });

  it('takes a pretty-printed JSON document as equal to the same value on one line', () => {
    expect(ok(['{', '  "a": 1,', '  "b": [1, 2]', '}'], '{"a":1,"b":[1,2]}\n')).toBe(true);
    expect(ok(['{', '  "a": 1,', '  "b": [1, 2]', '}'], '{"a":1,"b":[1,3]}\n')).toBe(false);
    expect(ok(['{"a":1}'], '{"a": 1}\n')).toBe(false);
  });

  it('checks progress lines for their form only, then leaves them out', () => {
    const doc = ['░░░░░░░░░░░░░░░░░░░░░░░░ 0/1  done 0  failed 0  remaining 1  —  ETA —  0 tokens  $0.0000', 'run r: 1 of 1 graded'];
    const real = '████████████████████████ 1/1  done 1  failed 0  remaining 0  2.2/s  ETA 0s  0 tokens  $0.0000\nrun r: 1 of 1 graded\n';
    expect(ok(doc, real)).toBe(true);
    expect(ok(doc, 'run r: 1 of 1 graded\n')).toBe(true);
    expect(ok(doc, '█ 1/1 broken\nrun r: 1 of 1 graded\n')).toBe(false);
    expect(ok(doc, `${real}run r: 0 of 1 graded\n`)).toBe(false);
  });
});
