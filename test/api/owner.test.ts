import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.ts';

/**
 * The server and the CLI on one PGlite directory (issue 11, finding 1 and its acceptance test), and a
 * server started through npm stopping with npm (finding 12). Real processes, as a user runs them.
 */

const root = mkdtempSync(join(tmpdir(), 'assay-owner-api-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const envFor = (dataDir: string) => ({ ASSAY_DATA_DIR: dataDir, DATABASE_URL: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' });

const started: ChildProcess[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const pid of pids.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `pid` is gone; false if it is still there after `ms` (a bound, not a speed claim). */
async function gone(pid: number, ms = 30_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

interface Started {
  proc: ChildProcess;
  out: string;
  url: string;
  /** The node server's pid, from the banner (under npm it is not the spawned process). */
  serverPid: number;
  adminKey: string | undefined;
}

/** Starts `cmd args` and resolves once the banner's URL is printed. */
function start(cmd: string, args: string[], dataDir: string): Promise<Started> {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...envFor(dataDir), PORT: '0' } });
    started.push(proc);
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const pid = Number(/\(pid (\d+) owns it/.exec(out)?.[1]);
      if (url && pid) {
        pids.push(pid);
        resolve({ proc, out, url, serverPid: pid, adminKey: /^\s+(assay_[0-9a-f]{8}_[A-Za-z0-9_-]{43})$/m.exec(out)?.[1] });
      }
    });
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    proc.once('exit', (code) => reject(new Error(`${cmd} exited ${code} before listening: ${err}${out}`)));
  });
}

const lockFiles = (dataDir: string) => readdirSync(join(dataDir, 'assay-owner')).filter((f) => f.endsWith('.json'));

describe('a CLI write while the server owns the PGlite directory', () => {
  it('lands in the server’s database at once, and is still there after the server stops', async () => {
    const dataDir = join(root, 'served');
    const env = envFor(dataDir);
    const server = await start(process.execPath, ['bin/launch.mjs', 'main'], dataDir);
    const admin = { authorization: `Bearer ${server.adminKey}` };

    const created = runCli(['keys', 'create', '--scope', 'annotate', '--name', 'tester', '--json'], { env });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const k = created.json<{ key: string; prefix: string }>();
    const listed = (await (await fetch(`${server.url}/api/keys`, { headers: admin })).json()) as { items: Array<{ prefix: string; name: string }> };
    expect(listed.items.map((i) => [i.prefix, i.name])).toContainEqual([k.prefix, 'tester']);
    // The new key authenticates (an annotate key may not read rubrics: 403, not 401).
    const withNew = await fetch(`${server.url}/api/rubrics`, { headers: { authorization: `Bearer ${k.key}` } });
    expect(withNew.status).toBe(403);

    // The queue over the owner's socket: pg-boss starts, reads and grades through it.
    const jobs = runCli(['jobs', '--json'], { env });
    expect(jobs.code).toBe(0);
    expect(jobs.json<{ counts: Record<string, number> }>().counts).toHaveProperty('created');
    const graded = runCli(['run', '--run', 'campaign-model-a-high', '--judge', 'lexical', '--json'], { env });
    expect(graded.code).toBe(0);
    const progress = graded.json<{ total: number; done: number; failed: number }>();
    expect(progress.total).toBeGreaterThan(0);
    expect([progress.done, progress.failed]).toEqual([progress.total, 0]);

    server.proc.kill('SIGTERM');
    expect(await gone(server.serverPid)).toBe(true);
    expect(lockFiles(dataDir)).toEqual([]);
    const after = runCli(['keys', 'list', '--json'], { env });
    expect(after.code).toBe(0);
    expect(after.json<{ keys: Array<{ prefix: string }> }>().keys.map((x) => x.prefix)).toContain(k.prefix);
  }, 240_000);

  it('exits 2 naming the owner when the owner does not answer, and writes nothing', async () => {
    const dataDir = join(root, 'unanswered');
    const env = envFor(dataDir);
    expect(runCli(['keys', 'create', '--scope', 'read', '--name', 'first'], { env }).code).toBe(0);
    // A live process that is not serving: the lock names it, its socket is gone.
    const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    started.push(sleeper);
    const lock = join(dataDir, 'assay-owner', '9.json');
    writeFileSync(
      lock,
      JSON.stringify({ generation: 9, pid: sleeper.pid, startTicks: null, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z', command: 'assay serve', socket: join(dataDir, 'assay-owner', '.s.PGSQL.5432'), token: 'aa' }),
    );
    const blocked = runCli(['keys', 'create', '--scope', 'read', '--name', 'second'], { env });
    expect(blocked.code).toBe(2);
    expect(blocked.stdout).toBe('');
    expect(blocked.stderr.trim().split('\n')).toHaveLength(1);
    expect(blocked.stderr).toContain(`in use by assay pid ${sleeper.pid} (assay serve`);
    expect(blocked.stderr).toContain('Stop that process');
    unlinkSync(lock);
    const { keys } = runCli(['keys', 'list', '--json'], { env }).json<{ keys: Array<{ name: string }> }>();
    expect(keys.map((x) => x.name)).toEqual(['first']);
  }, 120_000);
});

describe('a server started through npm', () => {
  it('stops when npm gets SIGTERM (npm forwards it to the shell, which does not pass it on)', async () => {
    const dataDir = join(root, 'npm-term');
    const s = await start('npm', ['start'], dataDir);
    expect(s.serverPid).not.toBe(s.proc.pid);
    s.proc.kill('SIGTERM');
    expect(await gone(s.serverPid)).toBe(true);
    // A clean shutdown: the database closed and the lock released.
    expect(lockFiles(dataDir)).toEqual([]);
  }, 180_000);

  it('stops when npm is SIGKILLed', async () => {
    const dataDir = join(root, 'npm-kill');
    const s = await start('npm', ['start'], dataDir);
    s.proc.kill('SIGKILL');
    expect(await gone(s.serverPid)).toBe(true);
    expect(existsSync(join(dataDir, 'assay-owner'))).toBe(true);
    expect(lockFiles(dataDir)).toEqual([]);
  }, 180_000);
});
