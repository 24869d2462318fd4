// The job queue's and the workers' times (ASSAY_JOB_*, ASSAY_WORKER_*) are read with the rest of the
// configuration when a command starts (src/config.ts), and reach the queue and the workers from there.
// Before, jobs/ read them when the queue first started: `assay serve` with a typo started, listened,
// and failed its first grading request instead.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { startService } from '../../src/server.ts';
import { runCliAsync } from '../helpers/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'assay-times-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a bad job time stops a command at start, naming the variable, creating nothing', () => {
  it.each([
    [['serve', '--port', '0'], { ASSAY_JOB_EXPIRE_SECONDS: '0x10' }, /^assay( \w+)?: environment: ASSAY_JOB_EXPIRE_SECONDS: a whole number of seconds in \(0, 86400\] written in digits, got '0x10'$/m],
    [['serve', '--port', '0'], { ASSAY_WORKER_DEAD_SECONDS: 'soon' }, /^assay( \w+)?: environment: ASSAY_WORKER_DEAD_SECONDS: a number of seconds/m],
    [['worker'], { ASSAY_JOB_MAINTENANCE_SECONDS: ' 1e2 ' }, /^assay( \w+)?: environment: ASSAY_JOB_MAINTENANCE_SECONDS: a whole number of seconds/m],
  ])('assay %j with %o', async (args, env, message) => {
    const dir = join(tmp, `bad-${Object.keys(env)[0]}-${args[0]}`);
    const r = await runCliAsync(args, { env: { ...env, ASSAY_DATA_DIR: dir, DATABASE_URL: '', ASSAY_RUN_FROM: 'source' }, timeoutMs: 40_000 });
    expect(r.timedOut, r.stderr).toBe(false);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(dir)).toBe(false);
  }, 60_000);
});

describe('the configured times reach the queue the server starts', () => {
  it('the grade queue expires jobs after ASSAY_JOB_EXPIRE_SECONDS, as configured at each start', async () => {
    const dataDir = join(tmp, 'served');
    const expiry = async (env: Record<string, string>) => {
      const svc = await startService({ ...loadConfig({ ...env, ASSAY_DATA_DIR: dataDir }), port: 0 }, { seed: false });
      try {
        await svc.queue.boss();
        const r = await svc.database.execute(`select expire_seconds from pgboss.queue where name = 'assay-grade'`);
        return Number(r.rows[0]?.expire_seconds);
      } finally {
        await svc.stop();
      }
    };
    // A new database: migrated (the queue's schema made) and served with 77 s.
    expect(await expiry({ ASSAY_JOB_EXPIRE_SECONDS: '77' })).toBe(77);
    // Migrated already: the server's own queue start applies the new setting.
    expect(await expiry({ ASSAY_JOB_EXPIRE_SECONDS: '88' })).toBe(88);
    expect(await expiry({})).toBe(600);
  }, 120_000);
});

describe('the configured times reach the queue `assay migrate` makes', () => {
  it('a new database gets its queue with ASSAY_JOB_EXPIRE_SECONDS', async () => {
    const dataDir = join(tmp, 'migrated');
    const r = await runCliAsync(['migrate', '--json'], { env: { ASSAY_JOB_EXPIRE_SECONDS: '66', ASSAY_DATA_DIR: dataDir, DATABASE_URL: '', ASSAY_RUN_FROM: 'source' }, timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    const db = await openDatabase({ dataDir });
    try {
      const q = await db.execute(`select expire_seconds from pgboss.queue where name = 'assay-grade'`);
      expect(Number(q.rows[0]?.expire_seconds)).toBe(66);
    } finally {
      await db.close();
    }
  }, 120_000);
});
