// `assay run` on a small run, measured from outside (issue 15): 50 describe answers on the 17-item
// farmyard rubric, written to a new database before the clock starts; the fake OpenAI-compatible judge
// (200 ms a call) in a child process; `bin/assay run --concurrency 32` spawned, timed from spawn to
// exit, its peak RSS read by /usr/bin/time. The figure includes process start, opening the database and
// the queue, and the end of the process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/db/client.ts';
import { migrateDatabase } from '../../src/services/schema.ts';
import { seedRun } from '../../test/jobs/helpers.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** An OpenAI judge (the fake answers its protocol); 17-item farmyard rubric verdicts. */
const JUDGE_FILE_GPT = join(ROOT, 'test/jobs/fixtures/fake-gpt.yaml');

export interface RunFigure {
  ms: number;
  peakMb: number;
  graded: number;
}

export async function startFakeChild(latencyMs: number): Promise<{ url: string; close: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/lib/fake-child.ts'), String(latencyMs)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(buf.trim());
    });
    child.once('exit', (code) => reject(new Error(`fake provider exited (${code})`)));
  });
  await warmFake(url);
  return { url, close: () => new Promise((r) => (child.once('exit', () => r()), child.stdin!.end())) };
}

/**
 * Two rounds of 32 calls before anything is timed: a fresh fake compiles its HTTP and JSON paths on the
 * first ones (about 30 ms a round here), and a real provider's warm-up is not the grader's time either.
 */
async function warmFake(url: string): Promise<void> {
  const body = JSON.stringify({ model: 'warm-up', messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
  for (let round = 0; round < 2; round++) {
    await Promise.all(
      Array.from({ length: 32 }, () =>
        fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' }, body }).then((r) => r.text()),
      ),
    );
  }
}

/** `database`: a postgres:// URL, or undefined for a new PGlite directory. */
export async function timeRun(fakeUrl: string, n: number, url?: string): Promise<RunFigure> {
  const dataDir = url ? undefined : mkdtempSync(join(tmpdir(), 'assay-cold-run-'));
  try {
    const database = await openDatabase(url ? { url } : { dataDir: dataDir! });
    // As `assay import` would have made it (the queue's schema with the rest).
    await migrateDatabase(database);
    // Distinct answer texts: no verdict comes from the cache.
    await seedRun(database, 'cold-run', n);
    await database.close();
    const timeFile = join(tmpdir(), `assay-cold-time-${process.pid}`);
    const env = {
      ...process.env,
      ASSAY_RUN_FROM: process.env.ASSAY_RUN_FROM ?? 'build',
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: 'sk-bench',
      OPENAI_BASE_URL: fakeUrl,
      DATABASE_URL: url ?? '',
      ASSAY_DATA_DIR: dataDir ?? '',
    };
    const t0 = performance.now();
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('/usr/bin/time', ['-f', '%M', '-o', timeFile, process.execPath, 'bin/launch.mjs', 'cli/main', 'run', '--run', 'cold-run', '--judge', JUDGE_FILE_GPT, '--concurrency', '32', '--json'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`assay run exited ${code}: ${stderr.slice(-2000)}`))));
    });
    const ms = performance.now() - t0;
    const peakMb = Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop()) / 1024;
    rmSync(timeFile, { force: true });
    return { ms, peakMb, graded: (JSON.parse(out) as { done: number }).done };
  } finally {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}
