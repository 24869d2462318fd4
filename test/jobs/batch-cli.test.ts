import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import { gradesPerAnswer, JUDGE_FILE, seedRun, VERDICTS } from './helpers.ts';

/** `assay run --batch` through the real binary against the fake provider's Message Batches endpoints. */

const NO_KEYS = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '' };

// The fake provider lives in this process, so the binary must run asynchronously (spawnSync would block it).
function runAsync(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(BIN, args, { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += String(d)));
    p.stderr.on('data', (d) => (stderr += String(d)));
    p.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('assay run --batch (CLI)', () => {
  let dir = '';
  let fake: FakeProvider;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'assay-batch-cli-'));
    fake = await startFakeProvider({ script: [VERDICTS] });
  });
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('grades a run through one provider batch, and a second run is a no-op', async () => {
    const data = join(dir, 'a');
    const database = await openDatabase({ dataDir: data });
    await migrate(database);
    const { runId, answerIds } = await seedRun(database, 'cli-batch', 6);
    await database.close();
    const env = { ...NO_KEYS, ASSAY_DATA_DIR: data, ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: fake.url };
    const first = await runAsync(['run', '--run', 'cli-batch', '--judge', JUDGE_FILE, '--batch', '--poll-ms', '5', '--json'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out).toMatchObject({ batch: true, run: { name: 'cli-batch' }, judge: { slug: 'fake-claude' }, created: 1, adopted: 0, graded: 6, failed: 0, resubmitted: 0, calls: 6, unpricedCalls: 0 });
    expect(out.tokens.input).toBeGreaterThan(0);
    expect(out.costUsd).toBeGreaterThan(0);
    expect(fake.calls.filter((c) => c.method === 'POST' && c.path === '/v1/messages/batches')).toHaveLength(1);
    const second = await runAsync(['run', '--run', 'cli-batch', '--judge', JUDGE_FILE, '--batch', '--poll-ms', '5'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/0 graded, 0 failed; 0 batches created/);
    // The queue path's summary line, from the run's usage ledger: the first run's 6 paid lines.
    const t = out.tokens;
    expect(second.stdout).toContain(`\n6 provider calls, ${t.input} input + ${t.cacheRead} cache-read + ${t.cacheWrite} cache-write + ${t.output} output tokens, $${out.costUsd.toFixed(4)}\n`);
    const check = await openDatabase({ dataDir: data });
    try {
      expect(await gradesPerAnswer(check, runId)).toEqual(answerIds.map(() => 1));
      const ledger = (await check.execute(`select count(*)::int as n, sum(l.input_tokens)::int as input, sum(l.cost_usd)::float8 as cost from usage_ledger l join answers a on a.id = l.answer_id where a.run_id = $1`, [runId])).rows[0]!;
      expect([Number(ledger.n), Number(ledger.input), Number(Number(ledger.cost).toFixed(6))]).toEqual([6, t.input, out.costUsd]);
    } finally {
      await check.close();
    }
  }, 240_000);

  it('refuses a judge without a batch API and a bad --poll-ms with exit 2 and one stderr line', () => {
    const env = { ...NO_KEYS, ASSAY_DATA_DIR: join(dir, 'b') };
    const bad = runCli(['run', '--run', 'x', '--judge', JUDGE_FILE, '--batch', '--poll-ms', '0'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/poll-ms/);
    const lexical = runCli(['run', '--run', 'x', '--judge', 'lexical', '--batch'], { env });
    expect(lexical.code).toBe(2);
    expect(lexical.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, 'b'))).toBe(false);
  }, 240_000);
});
