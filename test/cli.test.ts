import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';

describe('bin/assay', () => {
  it('lists its commands with --help', () => {
    const r = runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^assay — grade the answers of vision models/);
    expect(r.stdout).toContain('Commands:');
  });

  it('rejects an unknown command with exit 2 and one line on stderr', () => {
    const r = runCli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
  });
});
