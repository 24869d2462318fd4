import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.ts';

/** Runs bin/assay with its stdout pipe closed by the reader before anything is read (`assay … | head -c0`). */
function withClosedStdout(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a reader that closes the pipe early', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-pipe-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ends a command quietly with its own exit status, not an unhandled EPIPE', async () => {
    // 40 × 40 grid baseline in JSON: far more than a pipe buffer holds after the reader is gone.
    const r = await withClosedStdout(['baseline', 'grid', '--rows', '40', '--cols', '40', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const help = await withClosedStdout(['--help']);
    expect(help).toEqual({ code: 0, stderr: '' });
  });

  it('still finishes the write it was doing: the key created with nobody reading is stored', async () => {
    const env = { ASSAY_DATA_DIR: join(dir, 'data'), DATABASE_URL: '' };
    const r = await withClosedStdout(['keys', 'create', '--name', 'piped', '--scope', 'read'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const list = spawnSync(BIN, ['keys', 'list', '--json'], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
    expect(list.status, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { keys: { name: string }[] }).keys.map((k) => k.name)).toContain('piped');
  });
});
