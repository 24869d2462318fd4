import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT } from '../helpers/cli.ts';

/**
 * Where one document's examples run, in order: a scratch directory that looks like a clone (every
 * top-level entry of the repo linked in, so `test/fixtures/…` and `rubrics/` resolve) but has its own
 * `./data` — the default PGlite directory — so the examples build up one fresh database, and files they
 * write (`echo … > given.json`) land there. `assay` on PATH is bin/assay. The environment is a user's
 * with no database URL and no provider key, so the default judge is the offline lexical baseline.
 */
export interface DocSession {
  readonly dir: string;
  /** Runs one command line in bash (stderr merged into stdout, as a terminal shows them). */
  run(command: string): Promise<{ code: number; output: string }>;
  close(): Promise<void>;
}

/** The doc's server address: examples that use it get a server on a free port, started on demand. */
export const DOC_SERVER = 'http://127.0.0.1:8787';

const PROVIDER_ENV = ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'];

export function openSession(): DocSession {
  const dir = mkdtempSync(join(tmpdir(), 'assay-docs-'));
  for (const entry of readdirSync(ROOT)) {
    if (entry === 'data' || entry === '.git') continue;
    symlinkSync(join(ROOT, entry), join(dir, entry));
  }
  const shims = join(dir, '.shims');
  mkdirSync(shims);
  writeFileSync(join(shims, 'assay'), `#!/bin/sh\nexec "${BIN}" "$@"\n`);
  chmodSync(join(shims, 'assay'), 0o755);

  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${shims}:${process.env.PATH}`, DATABASE_URL: '' };
  for (const k of [...PROVIDER_ENV, 'ASSAY_DATA_DIR', 'PORT', 'HOST', 'KEY']) delete env[k];

  let lastCode = 0;
  let server: { child: ChildProcess; url: string } | null = null;

  async function ensureServer(): Promise<string> {
    if (server) return server.url;
    // An admin key made first (as a user would with `assay keys create`), so `$KEY` works in every example.
    const key = await shell(env, dir, 'assay keys create --scope admin --name docs-examples --json');
    if (key.code !== 0) throw new Error(`could not create the examples' key: ${key.output}`);
    env.KEY = (JSON.parse(key.output) as { key: string }).key;
    server = await startServer(env, dir);
    return server.url;
  }

  return {
    dir,
    async run(command) {
      let line = command;
      if (line.includes(DOC_SERVER)) line = line.split(DOC_SERVER).join(await ensureServer());
      // `(exit N)` first, so `echo $?` after a command prints that command's status.
      const r = await shell(env, dir, `(exit ${lastCode})\n${line}`);
      lastCode = r.code;
      return r;
    },
    async close() {
      if (server) await stopServer(server.child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function shell(env: NodeJS.ProcessEnv, cwd: string, script: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `exec 2>&1\n${script}`], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
}

function startServer(env: NodeJS.ProcessEnv, cwd: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, ['serve', '--port', '0'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let listening = false;
    const early = (code: number | null) => reject(new Error(`assay serve exited ${code} before listening: ${out}`));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = listening ? null : /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        listening = true;
        child.off('exit', early);
        resolve({ child, url: m[1]! });
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', early);
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
