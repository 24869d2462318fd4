import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.ts';

/**
 * `bin/assay serve` from the TypeScript source, started in a directory that is not the project's. tsx
 * takes the tsconfig.json it finds from the cwd: elsewhere it found none, and in a directory of symlinks
 * to the tree (what test/docs/session.ts makes) it found one whose `include` did not match src/'s real
 * paths. Either way the .tsx pages were compiled for React.createElement and every page was a 500
 * ("React is not defined"); bin/launch.mjs now names the project's tsconfig.
 */

const scratch = mkdtempSync(join(tmpdir(), 'assay-serve-cwd-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Starts `assay serve --port 0` from source in `cwd` (its database: ./data there); stops it after `fn`. */
async function withServer(cwd: string, fn: (url: string) => Promise<void>): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, ASSAY_RUN_FROM: 'source', DATABASE_URL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
  for (const k of ['ASSAY_DATA_DIR', 'PORT', 'HOST', 'TSX_TSCONFIG_PATH']) delete env[k];
  const child = spawn(BIN, ['serve', '--port', '0'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        log += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(log);
        if (m) resolve(m[1]!);
      });
      child.stderr.on('data', (d: Buffer) => (log += d.toString()));
      void exited.then((code) => reject(new Error(`assay serve exited ${code} before listening: ${log}`)));
    });
    await fn(url);
    expect(log).not.toContain('internal error');
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function page(url: string): Promise<{ status: number; body: string }> {
  const r = await fetch(url);
  return { status: r.status, body: await r.text() };
}

describe('assay serve from source, started outside the project', () => {
  it('in a plain directory, serves the leaderboard (a .tsx page)', async () => {
    const cwd = join(scratch, 'plain');
    mkdirSync(cwd);
    await withServer(cwd, async (url) => {
      const home = await page(`${url}/`);
      expect(home.status, home.body.slice(0, 300)).toBe(200);
      expect(home.body).toMatch(/^<!doctype html>/);
      expect(home.body).toContain('<title>Runs and leaderboard · assay</title>');
    });
  }, 180_000);

  it('in a directory of symlinks to the tree (as the doc examples run), serves the calibration page', async () => {
    const cwd = join(scratch, 'linked');
    mkdirSync(cwd);
    for (const entry of readdirSync(ROOT)) if (entry !== 'data' && entry !== '.git') symlinkSync(join(ROOT, entry), join(cwd, entry));
    await withServer(cwd, async (url) => {
      const calibration = await page(`${url}/calibration`);
      expect(calibration.status, calibration.body.slice(0, 300)).toBe(200);
      expect(calibration.body).toContain('<title>Judge calibration · assay</title>');
    });
  }, 180_000);
});
