import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../src/db/client.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { runCliAsync } from '../helpers/cli.ts';
import { cliDatabaseEnv, ENGINES } from '../helpers/db.ts';
import { seedRun, VERDICTS } from '../jobs/helpers.ts';

/**
 * `assay grade` on an answer with an ok grade, whose call fails: it exited 1 having replaced the ok grade
 * with the failure (scores gone). Now the ok grade stays, the command still exits 1, with the reason on
 * stderr and in the printed grade's meta.lastAttempt.
 */

const NO_KEYS = { ANTHROPIC_API_KEY: 'sk-ant-fake', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_BASE_URL: '', DATABASE_URL: '' };

for (const engine of ENGINES) {
  describe(`assay grade whose call fails keeps the stored ok grade [${engine}]`, () => {
    let dir = '';
    let fake: FakeProvider;
    let env: NodeJS.ProcessEnv = {};
    let drop: (() => Promise<void>) | undefined;
    let judgeFile = '';
    let answerId = 0;
    const withDb = async <T>(f: (d: Database) => Promise<T>): Promise<T> => {
      const d = env.DATABASE_URL ? await openDatabase({ url: env.DATABASE_URL }) : await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
      try {
        return await f(d);
      } finally {
        await d.close();
      }
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'assay-grade-keeps-ok-'));
      fake = await startFakeProvider({ script: [VERDICTS] });
      const db = await cliDatabaseEnv(engine, dir);
      drop = db.drop;
      env = { ...NO_KEYS, ...db.env };
      judgeFile = join(dir, 'keep-claude.yaml');
      writeFileSync(judgeFile, `id: keep-claude\nprovider: anthropic\nmodel: claude-sonnet-5\nbaseUrl: ${fake.url}\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 1000, temperature: 0, timeout_ms: 5000, max_attempts: 1 }\n`);
      answerId = await withDb(async (d) => {
        await migrate(d);
        return (await seedRun(d, 'keep-cli', 1)).answerIds[0]!;
      });
    }, 120_000);
    afterAll(async () => {
      await fake.close();
      await drop?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it('exit 1 with the reason; the ok grade, its scores and its time stay', async () => {
      const args = ['grade', '--rubric', 'farmyard-54', '--answer', String(answerId), '--judge', judgeFile, '--json'];
      const first = await runCliAsync(args, { env });
      expect(first.code).toBe(0);
      const ok = JSON.parse(first.stdout);
      expect(ok.status).toBe('ok');
      expect(ok.f1).toBeGreaterThan(0);
      // The regrade is asked again (its cached verdict gone) and the provider answers 500.
      await withDb((d) => d.execute(`delete from judge_cache`));
      fake.setScript([{ kind: 'status', status: 500, message: 'overloaded' }]);
      const again = await runCliAsync(args, { env });
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/judge call failed \(provider_error: .*500/);
      const kept = JSON.parse(again.stdout);
      expect([kept.gradeId, kept.status, kept.f1, kept.createdAt]).toEqual([ok.gradeId, 'ok', ok.f1, ok.createdAt]);
      expect(kept.meta.lastAttempt).toMatchObject({ status: 'provider_error', reason: expect.stringMatching(/500/) });
      const rows = await withDb(async (d) => (await d.execute(`select id, status, f1 from grades where answer_id = $1`, [answerId])).rows);
      expect(rows.map((r) => [Number(r.id), r.status, Number(r.f1)])).toEqual([[ok.gradeId, 'ok', ok.f1]]);
      // Without --json: the table says so.
      const text = await runCliAsync(args.slice(0, -1), { env });
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/this call\s+provider_error — .*500.*the stored ok grade .* is kept/);
    }, 240_000);
  });
}
