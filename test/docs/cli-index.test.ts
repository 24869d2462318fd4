import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { readDoc } from './markdown.ts';

/** docs/cli.md lists every command `assay --help` knows, and no command it does not. */

describe('docs/cli.md', () => {
  it('has one row per command of assay --help', () => {
    const help = runCli(['--help']);
    expect(help.code).toBe(0);
    const listed = help.stdout.slice(help.stdout.indexOf('Commands:'));
    const commands = [...listed.matchAll(/^ {2}(\S+(?: \S+)*?) {2,}/gm)].map((m) => m[1]!).sort();
    expect(commands.length).toBeGreaterThan(20);
    const rows = [...readDoc('docs/cli.md').matchAll(/^\| `assay ([^`]+)` \|/gm)].map((m) => m[1]!).sort();
    expect(rows).toEqual(commands);
  });
});
