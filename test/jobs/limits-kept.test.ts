import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAPIHono } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guard } from '../../src/api/auth.ts';
import type { AppEnv } from '../../src/api/context.ts';
import type { Api } from '../../src/api/define-route.ts';
import { onError, validationHook } from '../../src/api/errors.ts';
import { FixedWindowLimiter } from '../../src/api/rate-limit.ts';
import { registerJobs } from '../../src/api/routes/jobs.ts';
import { migrate, openDatabase } from '../../src/db/client.ts';
import type { Database } from '../../src/db/client.ts';
import { createKey, keyVerifier } from '../../src/services/keys.ts';
import { runCliAsync } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';
import { count, JUDGE_FILE, seedRun } from './helpers.ts';

/**
 * A rate limit given alone leaves the other one stored for the provider:model as it was (before, `--rpm N`
 * alone cleared a stored tpm, and so did `{"rpm": N}` over HTTP); clearing one is said explicitly
 * (`--tpm none`, `"tpm": null`). Limits for a judge that calls no provider, or for a panel, are refused
 * before anything is written.
 */

const limitsOf = async (database: Database, key: string) => {
  const r = await database.execute(`select rpm, tpm from rate_limits where key = $1`, [key]);
  const row = r.rows[0];
  return row ? { rpm: row.rpm === null ? null : Number(row.rpm), tpm: row.tpm === null ? null : Number(row.tpm) } : undefined;
};

describeDb('rate limits over HTTP: an omitted limit is kept', (ctx) => {
  let app: OpenAPIHono<AppEnv>;
  let writeKey = '';
  beforeAll(async () => {
    app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
    const deps = { database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 1000 }, log: () => {} };
    const api = { app, deps, guard: guard({ verifyKey: keyVerifier(ctx.database), limiter: new FixedWindowLimiter(1000, 60_000), bodyLimitBytes: 1 << 20 }) } as unknown as Api;
    app.onError((err, c) => onError(err, c, () => {}));
    registerJobs(api);
    writeKey = (await createKey(ctx.database, { scopes: ['write'], name: 'w' })).key;
  }, 60_000);
  const post = (path: string, body: unknown) =>
    app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${writeKey}` }, body: JSON.stringify(body) });

  it('rpm alone keeps the stored tpm; null clears one limit', async () => {
    await seedRun(ctx.database, 'limits-api', 2);
    expect((await post('/api/runs/limits-api/grade', { judge: 'claude', tpm: 40_000 })).status).toBe(202);
    expect(await limitsOf(ctx.database, 'anthropic:claude-sonnet-5')).toEqual({ rpm: null, tpm: 40_000 });
    expect((await post('/api/runs/limits-api/grade', { judge: 'claude', rpm: 50 })).status).toBe(202);
    expect(await limitsOf(ctx.database, 'anthropic:claude-sonnet-5')).toEqual({ rpm: 50, tpm: 40_000 });
    expect((await post('/api/runs/limits-api/grade', { judge: 'claude' })).status).toBe(202);
    expect(await limitsOf(ctx.database, 'anthropic:claude-sonnet-5')).toEqual({ rpm: 50, tpm: 40_000 });
    expect((await post('/api/runs/limits-api/grade', { judge: 'claude', tpm: null })).status).toBe(202);
    expect(await limitsOf(ctx.database, 'anthropic:claude-sonnet-5')).toEqual({ rpm: 50, tpm: null });
  }, 60_000);

  it('limits for a judge that calls no provider, or for a panel, are refused and write nothing', async () => {
    await seedRun(ctx.database, 'limits-none', 2);
    const judgeRows = () => count(ctx.database, `select count(*)::int as n from judges where slug in ('lexical', 'panel-lexical')`);
    const before = await judgeRows();
    for (const judge of ['lexical', 'panel-lexical']) {
      const r = await post('/api/runs/limits-none/grade', { judge, rpm: 10 });
      expect(r.status, judge).toBe(400);
      expect(((await r.json()) as any).error.code).toBe('bad_input');
    }
    expect(await judgeRows()).toBe(before);
    expect(await count(ctx.database, `select count(*)::int as n from rate_limits where key like 'lexical:%'`)).toBe(0);
    expect(await count(ctx.database, `select count(*)::int as n from grading_runs gr join runs r on r.id = gr.run_id where r.name = 'limits-none'`)).toBe(0);
  }, 60_000);
});

// The CLI runs on its own PGlite data directory whatever the engine of the run: once, outside the engine loop.
// (It was skipped whenever TEST_DATABASE_URL was set, so CI, which always sets it, never ran it.)
describe('assay run --rpm / --tpm: an omitted flag keeps the stored limit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-limits-cli-'));
  const env = { ...process.env, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data') };
  beforeAll(async () => {
    const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR });
    await migrate(database);
    await seedRun(database, 'limits-cli', 2);
    await database.close();
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const stored = async () => {
    const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR });
    try {
      return await limitsOf(database, 'anthropic:claude-sonnet-5');
    } finally {
      await database.close();
    }
  };
  const run = (...flags: string[]) => runCliAsync(['run', '--run', 'limits-cli', '--judge', JUDGE_FILE, '--enqueue-only', ...flags], { env });

  it('--rpm alone keeps --tpm; --tpm none clears it; a bad value is refused', async () => {
    expect((await run('--tpm', '40000')).code).toBe(0);
    expect(await stored()).toEqual({ rpm: null, tpm: 40_000 });
    expect((await run('--rpm', '50')).code).toBe(0);
    expect(await stored()).toEqual({ rpm: 50, tpm: 40_000 });
    expect((await run('--tpm', 'none')).code).toBe(0);
    expect(await stored()).toEqual({ rpm: 50, tpm: null });
    const bad = await run('--rpm', 'off');
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe("assay run: --rpm must be a number (requests per minute) or none (no limit), got 'off'");
    expect(await stored()).toEqual({ rpm: 50, tpm: null });
  }, 300_000);
});
