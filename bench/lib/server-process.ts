import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The real server as a child process, for benches that measure it from outside: started on port 0 with
 * no provider keys and no effective rate limit, resolved once it prints its URL and its first admin key.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface StartedServer {
  child: ChildProcess;
  url: string;
  key: string;
}

export function startServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<StartedServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', RATE_LIMIT_PER_MINUTE: '100000000', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const key = /^\s+(assay_[0-9a-f]{8}_\S+)$/m.exec(out)?.[1];
      if (url && key) resolve({ child, url, key });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${err}`)));
  });
}

export function stopServer(s: StartedServer): Promise<void> {
  return new Promise((resolve) => {
    if (s.child.exitCode !== null) return resolve();
    s.child.once('exit', () => resolve());
    s.child.kill('SIGTERM');
  });
}
