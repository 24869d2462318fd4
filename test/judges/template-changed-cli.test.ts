import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../src/db/client.ts';
import { answers, runs } from '../../src/db/schema.ts';
import { JUDGES_DIR } from '../../src/judges/config.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { BIN, FIXTURES, ROOT } from '../helpers/cli.ts';
import { cliDatabaseEnv, ENGINES } from '../helpers/db.ts';
import { seedRun, VERDICTS } from '../jobs/helpers.ts';

/**
 * A judge file names its prompt template by path, so its config hash (and judges row) stays the same when
 * the template's text is edited. Grading again with the edited template would put grades of two prompts
 * under one judge configuration; `assay run` and `assay grade` refuse it (exit 2, nothing written, no
 * provider call), for a judge and for a panel whose member's template changed.
 */

const NO_KEYS = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ANTHROPIC_BASE_URL: '', DATABASE_URL: '' };

function runAsync(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(BIN, args, { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Rows of every table a grade, an enqueue or a call writes. */
async function counts(database: Database): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ['judges', 'grades', 'usage_ledger', 'judge_cache', 'grading_runs', 'answers', 'rubric_versions', 'pgboss.job']) {
    out[t] = Number((await database.execute(`select count(*)::int as n from ${t}`)).rows[0].n);
  }
  return out;
}

for (const engine of ENGINES) {
  describe(`a judge whose prompt template changed since it first graded [${engine}]`, () => {
    let dir = '';
    let fake: FakeProvider;
    let env: NodeJS.ProcessEnv = {};
    let drop: (() => Promise<void>) | undefined;
    let judgeFile = '';
    let panelFile = '';
    let template = '';
    const open = async (): Promise<Database> => (env.DATABASE_URL ? openDatabase({ url: env.DATABASE_URL }) : openDatabase({ dataDir: env.ASSAY_DATA_DIR! }));
    const withDb = async <T>(f: (d: Database) => Promise<T>): Promise<T> => {
      const d = await open();
      try {
        return await f(d);
      } finally {
        await d.close();
      }
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'assay-template-changed-'));
      fake = await startFakeProvider({ script: [VERDICTS] });
      const db = await cliDatabaseEnv(engine, dir);
      drop = db.drop;
      env = { ...NO_KEYS, ...db.env, OPENAI_API_KEY: 'sk-fake' };
      const judgesDir = join(dir, 'judges');
      mkdirSync(join(judgesDir, 'prompts'), { recursive: true });
      template = join(judgesDir, 'prompts', 'rubric-v1.md');
      copyFileSync(join(JUDGES_DIR, 'prompts', 'rubric-v1.md'), template);
      judgeFile = join(judgesDir, 'tpl-gpt.yaml');
      writeFileSync(judgeFile, `id: tpl-gpt\nprovider: openai\nmodel: gpt-4.1\nbaseUrl: ${fake.openaiBaseUrl}\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 1000, temperature: 0, timeout_ms: 5000, max_attempts: 2 }\n`);
      panelFile = join(judgesDir, 'tpl-panel.yaml');
      writeFileSync(panelFile, 'id: tpl-panel\nprovider: panel\nmembers: [tpl-gpt, lexical]\nsamples: 1\nvote: majority\nshuffle: false\nseed: 1\n');
      await withDb(async (d) => {
        await migrate(d);
        await seedRun(d, 'tpl-run', 2);
      });
    }, 120_000);
    afterAll(async () => {
      await fake?.close();
      await drop?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it('assay run and assay grade exit 2 naming the judge and the template; nothing is graded or written', async () => {
      const first = await runAsync(['run', '--run', 'tpl-run', '--judge', judgeFile, '--json'], env);
      expect(first.stderr).not.toMatch(/Error/);
      expect(first.code).toBe(0);
      expect(first.stdout && JSON.parse(first.stdout)).toMatchObject({ total: 2, done: 2, failed: 0 });
      expect(fake.calls).toHaveLength(2);
      // The panel grades once too (its own row, its member's grades under the member's row).
      const panelFirst = await runAsync(['grade', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--judge', panelFile, '--json'], env);
      expect(panelFirst.stderr).toBe('');
      expect(panelFirst.code).toBe(0);
      expect(fake.calls).toHaveLength(3);
      const storedText = await withDb(async (d) => (await d.execute(`select config->>'promptText' as t from judges where slug = 'tpl-gpt'`)).rows[0].t);
      expect(storedText).toBe(readFileSync(template, 'utf8'));

      // The user edits the template in place (same path, so the same config hash), and a new answer arrives.
      appendFileSync(template, '\nBe strict: an item only partly described is absent.\n');
      await withDb(async (d) => {
        const [run] = await d.db.select({ id: runs.id }).from(runs).where(eq(runs.name, 'tpl-run'));
        const [a] = await d.db.select({ rubricId: answers.rubricId }).from(answers).where(eq(answers.runId, run!.id)).limit(1);
        await d.db.insert(answers).values({ runId: run!.id, externalId: 'late', task: 'describe', rubricId: a!.rubricId, text: 'a late answer: a barn and two cows.' });
      });
      const before = await withDb(counts);

      const expectRefused = (r: { code: number; stdout: string; stderr: string }, who: RegExp) => {
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toMatch(who);
        expect(r.stderr).toContain(template);
        expect(r.stderr).toMatch(/changed since this configuration first graded/);
        expect(r.stderr).toMatch(/mix/);
        expect(r.stderr).toMatch(/new id/);
        expect(r.stderr).toMatch(/restore the template/);
      };
      const run = await runAsync(['run', '--run', 'tpl-run', '--judge', judgeFile, '--json'], env);
      expectRefused(run, /judge tpl-gpt/);
      const grade = await runAsync(['grade', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--judge', judgeFile], env);
      expectRefused(grade, /judge tpl-gpt/);
      // A panel asks its members with their own rows: the member's changed template refuses the panel.
      const panelRun = await runAsync(['run', '--run', 'tpl-run', '--judge', panelFile, '--json'], env);
      expectRefused(panelRun, /panel tpl-panel.*judge tpl-gpt/);
      const panelGrade = await runAsync(['grade', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--judge', panelFile], env);
      expectRefused(panelGrade, /panel tpl-panel.*judge tpl-gpt/);
      expect(fake.calls).toHaveLength(3);
      expect(await withDb(counts)).toEqual(before);

      // Restoring the template is the configuration that graded: grading goes on (the late answer only).
      writeFileSync(template, readFileSync(join(JUDGES_DIR, 'prompts', 'rubric-v1.md'), 'utf8'));
      const restored = await runAsync(['run', '--run', 'tpl-run', '--judge', judgeFile, '--json'], env);
      expect(restored.code).toBe(0);
      expect(JSON.parse(restored.stdout)).toMatchObject({ total: 3, done: 3, failed: 0, enqueued: { jobs: 1, alreadyGraded: 2 } });
      expect(fake.calls).toHaveLength(4);
    }, 300_000);
  });
}
