import { afterAll, describe, expect, it } from 'vitest';
import { compareOutput, fill, parseConsole, type Bindings } from './console.ts';
import { docFiles, fences, readDoc } from './markdown.ts';
import { openSession, type DocSession } from './session.ts';

/**
 * Every ```console block of README.md and docs/*.md is run: its `$ ` commands go through bin/assay (or
 * bash, for `echo … > f`, `cat`, pipes), in document order in one scratch directory and database per
 * document, and each command's output must be what the doc prints after it (see console.ts for the
 * few things allowed to differ). A block that cannot run offline says so right above it:
 * `<!-- example: not run — <reason> -->`. A block with neither fails.
 */

const NOT_RUN = /^not run\s+[—-]\s+(\S.{9,})$/;

for (const path of docFiles()) {
  const blocks = fences(readDoc(path)).filter((f) => f.lang === 'console');
  if (!blocks.length) continue;

  describe(`${path}: console examples`, () => {
    let session: DocSession | null = null;
    const bindings: Bindings = new Map();
    afterAll(async () => {
      await session?.close();
    });

    for (const block of blocks) {
      const where = `${path}:${block.line}`;
      if (block.marker !== null) {
        it(`${where} is marked with a reason it is not run`, () => {
          expect(block.marker, `${where}: a marker must read "not run — <reason>"`).toMatch(NOT_RUN);
        });
        continue;
      }
      it(`${where} prints what the doc shows`, { timeout: 300_000 }, async () => {
        const steps = parseConsole(block.body);
        expect(steps.length, `${where}: a console block with no '$ ' command`).toBeGreaterThan(0);
        session ??= openSession();
        for (const step of steps) {
          const command = fill(step.command, bindings);
          const { output } = await session.run(command);
          const result = compareOutput(step.expected, output, bindings);
          if (!result.ok) expect(result.actual, `${where}: $ ${command}`).toBe(result.expected);
        }
      });
    }
  });
}

describe('doc examples', () => {
  it('include the README and at least one document under docs/', () => {
    const withConsole = docFiles().filter((p) => fences(readDoc(p)).some((f) => f.lang === 'console'));
    expect(withConsole).toContain('README.md');
    expect(withConsole.some((p) => p.startsWith('docs/'))).toBe(true);
  });
});

describe('doc examples outside console blocks', () => {
  it('none: a block that shows a `$ ` command is a console block, so it is run (or marked)', () => {
    const hidden = docFiles().flatMap((p) =>
      fences(readDoc(p))
        .filter((f) => f.lang !== 'console' && f.body.some((l) => l.startsWith('$ ')))
        .map((f) => `${p}:${f.line} (${f.lang || 'bare'})`),
    );
    expect(hidden).toEqual([]);
  });
});
