import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT } from '../helpers/cli.ts';

/**
 * src/threads/entry.mjs, the worker thread's entry from source, in a process started outside the project.
 * It registered tsx without naming a tsconfig, so tsx took the one it found from the cwd — none there —
 * and compiled the thread's modules without the project's settings (.tsx for React.createElement).
 */

const cwd = mkdtempSync(join(tmpdir(), 'assay-thread-cwd-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('the worker thread entry (from source)', () => {
  it("compiles the thread's modules with the project's tsconfig whatever the cwd", () => {
    const entry = pathToFileURL(join(ROOT, 'src/threads/entry.mjs')).href;
    const module = pathToFileURL(join(FIXTURES, 'threads/jsx-module.tsx')).href;
    // Plain node in the main thread (no tsx, no TSX_TSCONFIG_PATH): only the entry's registration counts.
    const script = `
      import { Worker } from 'node:worker_threads';
      const w = new Worker(new URL(${JSON.stringify(entry)}), { workerData: { entry: ${JSON.stringify(module)} }, execArgv: [] });
      w.once('message', (m) => { process.stdout.write(m); void w.terminate(); });
      w.once('error', (e) => { process.stderr.write(String(e)); process.exitCode = 1; });`;
    const env = { ...process.env };
    delete env.TSX_TSCONFIG_PATH;
    delete env.NODE_OPTIONS;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('<b title="t">42</b>');
    expect(r.status).toBe(0);
  }, 90_000);
});
