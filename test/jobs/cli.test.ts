import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { BIN, ROOT, runCli, runCliAsync } from '../helpers/cli.ts';
import { gradesPerAnswer, JUDGE_FILE, seedRun, VERDICTS } from './helpers.ts';

/** `assay run` and `assay jobs` through the real binary on a PGlite data directory, and Ctrl-C then resume. */

const NO_KEYS = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '' };

async function seeded(dir: string, name: string, n: number): Promise<{ runId: number; answerIds: number[] }> {
  const database = await openDatabase({ dataDir: dir });
  await migrate(database);
  const r = await seedRun(database, name, n);
  await database.close();
  return r;
}

async function perAnswer(dir: string, runId: number): Promise<number[]> {
  const database = await openDatabase({ dataDir: dir });
  try {
    return await gradesPerAnswer(database, runId);
  } finally {
    await database.close();
  }
}

function runAsync(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const p = spawn(BIN, args, { cwd: ROOT, env });
    let stdout = '';
    p.stdout.on('data', (d) => (stdout += String(d)));
    p.on('exit', (code) => resolve({ code: code ?? -1, stdout }));
  });
}

describe('assay run / assay jobs (CLI)', () => {
  let dir = '';
  let fake: FakeProvider;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'assay-jobs-cli-'));
    fake = await startFakeProvider({ script: [VERDICTS], latencyMs: 150 });
  });
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('grades a run, is a no-op the second time, and lists the jobs', async () => {
    const data = join(dir, 'a');
    const { runId, answerIds } = await seeded(data, 'cli-run', 15);
    const env = { ...NO_KEYS, ASSAY_DATA_DIR: data };
    const first = runCli(['run', '--run', 'cli-run', '--judge', 'lexical', '--concurrency', '4', '--json'], { env });
    expect(first.stderr).not.toMatch(/Error/);
    expect(first.code).toBe(0);
    expect(first.json()).toMatchObject({ total: 15, done: 15, failed: 0, remaining: 0, calls: 15, enqueued: { jobs: 15, alreadyGraded: 0 }, interrupted: false });
    const second = runCli(['run', '--run', 'cli-run', '--judge', 'lexical', '--json'], { env });
    expect(second.code).toBe(0);
    expect(second.json()).toMatchObject({ done: 15, calls: 15, enqueued: { jobs: 0, alreadyGraded: 15 } });
    const jobs = runCli(['jobs', '--run', 'cli-run', '--json'], { env });
    expect(jobs.code).toBe(0);
    expect(jobs.json().counts).toMatchObject({ completed: 15, failed: 0, created: 0 });
    expect(await perAnswer(data, runId)).toEqual(answerIds.map(() => 1));
  }, 120_000);

  it('bad input exits 2 with one line and writes nothing', () => {
    const env = { ...NO_KEYS, ASSAY_DATA_DIR: join(dir, 'never') };
    const r = runCli(['run', '--run', 'x'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--judge/);
    const s = runCli(['jobs', '--state', 'stuck'], { env });
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/--state must be one of/);
  });

  it('a judge whose key is unset is refused before anything is opened, unless the run is only enqueued', async () => {
    const data = join(dir, 'nokey');
    const { runId } = await seeded(data, 'cli-nokey', 2);
    const env = { ...process.env, ...NO_KEYS, ASSAY_DATA_DIR: data };
    const before = fake.calls.length;
    const r = await runCliAsync(['run', '--run', 'cli-nokey', '--judge', JUDGE_FILE], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual(['assay run: judge fake-claude: needs ANTHROPIC_API_KEY']);
    expect(fake.calls.length).toBe(before);
    const database = await openDatabase({ dataDir: data });
    try {
      const rows = (q: string) => database.execute(q).then((x) => Number(x.rows[0]!.n));
      expect(await rows('select count(*)::int as n from grading_runs')).toBe(0);
      expect(await rows('select count(*)::int as n from judges')).toBe(0);
      // No queue was even started: pg-boss's schema is made on a queue's first start.
      const queue = await database.execute(`select to_regclass('pgboss.job') is not null as present`);
      if (queue.rows[0]!.present) expect(await rows(`select count(*)::int as n from pgboss.job`)).toBe(0);
    } finally {
      await database.close();
    }
    // Another process (a worker with the key) makes the calls: enqueueing needs no key here.
    const q = await runCliAsync(['run', '--run', 'cli-nokey', '--judge', JUDGE_FILE, '--enqueue-only', '--json'], { env });
    // Exit 0: enqueueing is all --enqueue-only does, and the answers left are the workers'.
    expect(q.code).toBe(0);
    expect(q.json()).toMatchObject({ enqueued: { jobs: 2 }, done: 0, remaining: 2 });
    const text = await runCliAsync(['run', '--run', 'cli-nokey', '--judge', JUDGE_FILE, '--enqueue-only'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('2 queued for workers: `assay worker`');
    expect(text.stdout).not.toContain('resume with the same');
    expect(await perAnswer(data, runId)).toEqual([0, 0]);
  }, 120_000);

  it("the summary of a run over a model with no price says its cost is unknown, never $0.0000", async () => {
    const data = join(dir, 'unpriced');
    await seeded(data, 'cli-unpriced', 3);
    fake.setScript([VERDICTS]);
    const env = { ...process.env, ...NO_KEYS, ASSAY_DATA_DIR: data, ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: fake.url };
    const r = await runAsync(['run', '--run', 'cli-unpriced', '--judge', join(ROOT, 'test/jobs/fixtures/fake-claude-unpriced.yaml'), '--concurrency', '3'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('3 provider calls, ');
    expect(r.stdout).toContain(', cost unknown (3 calls of a model not in judges/prices.yaml)');
    expect(r.stdout).not.toContain('$0.0000');
  }, 120_000);

  it('Ctrl-C stops with exit 130; the same command resumes and finishes without a duplicate', async () => {
    const data = join(dir, 'b');
    const n = 24;
    const { runId, answerIds } = await seeded(data, 'cli-slow', n);
    fake.setScript([VERDICTS]);
    const before = fake.calls.length;
    const env = { ...process.env, ...NO_KEYS, ASSAY_DATA_DIR: data, ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: fake.url };
    const args = ['run', '--run', 'cli-slow', '--judge', JUDGE_FILE, '--concurrency', '2', '--json'];
    const child = spawn(BIN, args, { cwd: ROOT, env });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number>((r) => child.on('exit', (code) => r(code ?? -1)));
    const end = Date.now() + 60_000;
    while (fake.calls.length - before < 4 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/stopping: finishing the jobs in flight/);
    const graded = (await perAnswer(data, runId)).reduce((a, b) => a + b, 0);
    expect(graded).toBeGreaterThan(0);
    expect(graded).toBeLessThan(n);

    // Asynchronously: the fake provider answers from this process, which spawnSync would block.
    const again = await runAsync(args, env);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ total: n, done: n, failed: 0, remaining: 0, interrupted: false });
    expect(await perAnswer(data, runId)).toEqual(answerIds.map(() => 1));
    // A graceful stop finishes what it started: no call was paid for twice.
    expect(fake.calls.length - before).toBe(n);
  }, 120_000);
});
