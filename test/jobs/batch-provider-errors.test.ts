import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { BIN, ROOT } from '../helpers/cli.ts';
import { JUDGE_FILE, seedRun, VERDICTS } from './helpers.ts';

/**
 * A provider that answers a batch call (create, poll) with an error is no internal error of assay:
 * `assay run --batch` prints one line naming the provider, the status and what to check, exit 1 (the
 * work did not succeed; batches already created are resumed by the next run), no stack trace.
 */

const NO_KEYS = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '' };

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

const fail = (status: number, type: string, message: string) => () => ({ status, body: { type: 'error', error: { type, message } } });
const BATCH_ID = 'msgbatch_fake_poll';

/** A port nothing listens on: connection refused. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('assay run --batch: a provider error on a batch call', () => {
  let dir = '';
  const fakes: FakeProvider[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'assay-batch-perr-'));
  });
  afterAll(async () => {
    for (const f of fakes) await f.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function runWith(name: string, baseUrl: string) {
    const data = join(dir, name);
    const database = await openDatabase({ dataDir: data });
    await migrate(database);
    await seedRun(database, name, 2);
    await database.close();
    const env = { ...NO_KEYS, ASSAY_DATA_DIR: data, ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: baseUrl };
    return runAsync(['run', '--run', name, '--judge', JUDGE_FILE, '--batch', '--poll-ms', '5'], env);
  }

  const expectOneLine = (r: { code: number; stderr: string }, what: RegExp) => {
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^assay run: anthropic batch API/);
    expect(r.stderr).toMatch(what);
    expect(r.code).toBe(1);
  };

  const CREATE = [
    { status: 401, type: 'authentication_error', check: /HTTP 401.*creating a batch.*check ANTHROPIC_API_KEY/ },
    { status: 404, type: 'not_found_error', check: /HTTP 404.*creating a batch.*check the judge's model and ANTHROPIC_BASE_URL/ },
    { status: 429, type: 'rate_limit_error', check: /HTTP 429.*creating a batch.*run again later/ },
    { status: 503, type: 'overloaded_error', check: /HTTP 503.*creating a batch.*run again later/ },
  ];
  for (const c of CREATE) {
    it(`creating a batch: HTTP ${c.status}`, async () => {
      const fake = await startFakeProvider({ script: [VERDICTS], routes: { 'POST /v1/messages/batches': fail(c.status, c.type, `fake ${c.type}`) } });
      fakes.push(fake);
      const r = await runWith(`create-${c.status}`, fake.url);
      expectOneLine(r, c.check);
      expect(r.stderr).toMatch(new RegExp(`fake ${c.type}`));
    }, 120_000);
  }

  it('polling a batch: HTTP 500', async () => {
    const now = new Date().toISOString();
    const fake = await startFakeProvider({
      script: [VERDICTS],
      routes: {
        'POST /v1/messages/batches': () => ({
          status: 200,
          body: { id: BATCH_ID, type: 'message_batch', processing_status: 'in_progress', request_counts: { processing: 2, succeeded: 0, errored: 0, canceled: 0, expired: 0 }, created_at: now, ended_at: null, expires_at: now, archived_at: null, cancel_initiated_at: null, results_url: null },
        }),
        [`GET /v1/messages/batches/${BATCH_ID}`]: fail(500, 'api_error', 'fake api_error'),
      },
    });
    fakes.push(fake);
    const r = await runWith('poll-500', fake.url);
    expectOneLine(r, new RegExp(`HTTP 500.*polling batch ${BATCH_ID}.*run again later`));
  }, 120_000);

  it('connection refused', async () => {
    const r = await runWith('refused', `http://127.0.0.1:${await closedPort()}`);
    expectOneLine(r, /connection error.*creating a batch.*check ANTHROPIC_BASE_URL/);
  }, 120_000);
});
