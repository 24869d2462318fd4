// What a bare OpenAI SDK client takes for `assay run`'s calls in a new process (sdk-floor-child.mjs),
// timed like timeRun: spawn to exit, peak RSS by /usr/bin/time. It puts assay's own share of a cold
// run beside the 0.40 s latency floor, which no process reaches: node's start, the SDK's load and its
// first requests are in every cold run.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunFigure } from './cold-run.ts';

const CHILD = fileURLToPath(new URL('./sdk-floor-child.mjs', import.meta.url));

export async function timeBareSdk(fakeUrl: string, n: number, concurrency: number): Promise<Omit<RunFigure, 'graded'>> {
  const timeFile = join(tmpdir(), `assay-sdk-floor-${process.pid}`);
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', timeFile, process.execPath, CHILD, String(n), String(concurrency)], {
      env: { ...process.env, OPENAI_BASE_URL: fakeUrl },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bare SDK client exited ${code}: ${stderr.slice(-2000)}`))));
  });
  const ms = performance.now() - t0;
  const peakMb = Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop()) / 1024;
  rmSync(timeFile, { force: true });
  return { ms, peakMb };
}
