// `npm start` measured from outside (issue 15): the real entry (bin/launch.mjs main, what `npm start`
// runs) spawned on a data directory; the clock runs from spawn to the first 200 from /health (polled
// every 10 ms on the port the server prints), then resident memory is read from /proc. Fresh = an empty
// directory (initialise, migrate, seed the examples, create a key); restart = the same directory again.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface StartFigure {
  /** Spawn to the first 200 from GET /health. */
  ms: number;
  /** Resident set once the first 200 came back, and its peak until then (VmRSS, VmHWM), MB. */
  rssMb: number;
  peakMb: number;
}

const kb = (status: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);

/**
 * The bench's own first fetch() loads and compiles undici (100–190 ms on a loaded 2-core machine): done
 * once against a throwaway local server before any clock starts, so the figure is the server's start, not
 * the measuring client's.
 */
let fetchWarmed: Promise<void> | null = null;
function warmFetch(): Promise<void> {
  fetchWarmed ??= new Promise<void>((resolve, reject) => {
    const s = createServer((_q, r) => r.end('ok')).listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      fetch(`http://127.0.0.1:${port}/`)
        .then((r) => r.arrayBuffer())
        .then(() => {
          s.close();
          s.closeAllConnections();
          resolve();
        }, reject);
    });
  });
  return fetchWarmed;
}

export async function timeStart(env: Record<string, string>): Promise<StartFigure> {
  await warmFetch();
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['bin/launch.mjs', 'main'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', ASSAY_RUN_FROM: process.env.ASSAY_RUN_FROM ?? 'build', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let polling = false;
    const fail = (e: Error) => {
      child.kill('SIGKILL');
      reject(e);
    };
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before answering:\n${err}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const port = /listening on http:\/\/[^:]+:(\d+)/.exec(out)?.[1];
      if (!port || polling) return;
      polling = true;
      const poll = async (): Promise<void> => {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/health`);
          await res.arrayBuffer();
          if (res.status === 200) {
            const ms = performance.now() - t0;
            const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
            child.removeAllListeners('exit');
            child.once('exit', () => resolve({ ms, rssMb: kb(status, 'VmRSS') / 1024, peakMb: kb(status, 'VmHWM') / 1024 }));
            child.kill('SIGTERM');
            return;
          }
        } catch {
          // not answering yet
        }
        setTimeout(() => void poll().catch(fail), 10);
      };
      // The banner is printed once the server listens; poll from the first moment it could answer.
      void poll().catch(fail);
    });
  });
}
