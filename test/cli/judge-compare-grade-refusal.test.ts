import { appendFileSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../src/db/client.ts';
import { JUDGES_DIR } from '../../src/judges/config.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { runCliAsync } from '../helpers/cli.ts';
import { cliDatabaseEnv, ENGINES } from '../helpers/db.ts';
import { seedRun, VERDICTS } from '../jobs/helpers.ts';

/**
 * `assay judge compare --grade` checks both judges for everything that refuses before a provider call
 * before it grades either: when B is refused (its prompt template edited in place since it first graded,
 * so ensureJudgeRow refuses it; or its provider's key is not set, so no worker could open it), A is not
 * graded first — no call to A's model, no row written.
 */

const TABLES = ['judges', 'grades', 'usage_ledger', 'judge_cache', 'grading_runs'];

for (const engine of ENGINES) {
  describe(`judge compare --grade refuses B before grading A [${engine}]`, () => {
    let dir = '';
    let fake: FakeProvider;
    let env: NodeJS.ProcessEnv = {};
    let drop: (() => Promise<void>) | undefined;
    const open = (): Promise<Database> => (env.DATABASE_URL ? openDatabase({ url: env.DATABASE_URL }) : openDatabase({ dataDir: env.ASSAY_DATA_DIR! }));
    const counts = async (): Promise<Record<string, number>> => {
      const d = await open();
      try {
        const out: Record<string, number> = {};
        for (const t of TABLES) out[t] = Number((await d.execute(`select count(*)::int as n from ${t}`)).rows[0]!.n);
        return out;
      } finally {
        await d.close();
      }
    };
    const callsTo = (model: string) => fake.calls.filter((c) => c.body?.model === model).length;
    const fileA = () => join(dir, 'ref-a.yaml');
    const fileB = () => join(dir, 'ref-b.yaml');

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'assay-jcg-refusal-'));
      fake = await startFakeProvider({ script: [VERDICTS] });
      const db = await cliDatabaseEnv(engine, dir);
      drop = db.drop;
      env = { ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '', DATABASE_URL: '', ...db.env, OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: fake.openaiBaseUrl };
      for (const [id, model] of [['ref-a', 'ref-model-a'], ['ref-b', 'ref-model-b']] as const) {
        copyFileSync(join(JUDGES_DIR, 'prompts', 'rubric-v1.md'), join(dir, `${id}.md`));
        writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\nprovider: openai\nmodel: ${model}\nprompt: ${id}.md\nparams: { max_tokens: 1000, temperature: 0, timeout_ms: 5000, max_attempts: 2 }\n`);
      }
      const d = await open();
      try {
        await migrate(d);
        await seedRun(d, 'ref-run', 2);
      } finally {
        await d.close();
      }
    }, 120_000);
    afterAll(async () => {
      await fake?.close();
      await drop?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it("B's template changed since it graded: exit 2 naming B, and A is neither asked nor written", async () => {
      const first = await runCliAsync(['run', '--run', 'ref-run', '--judge', fileB(), '--json'], { env });
      expect(first.stderr).not.toMatch(/Error/);
      expect(first.code).toBe(0);
      expect(callsTo('ref-model-b')).toBe(2);
      appendFileSync(join(dir, 'ref-b.md'), '\nBe strict: an item only partly described is absent.\n');
      const before = await counts();

      const r = await runCliAsync(['judge', 'compare', '--run', 'ref-run', '--judge', fileA(), '--judge', fileB(), '--grade'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/judge ref-b: its prompt template .*ref-b\.md changed/);
      expect(callsTo('ref-model-a')).toBe(0);
      expect(callsTo('ref-model-b')).toBe(2);
      expect(await counts()).toEqual(before);
    }, 240_000);

    it("B has no API key: exit 2 naming the variable, and A is neither asked nor written", async () => {
      const fileC = join(dir, 'ref-c.yaml');
      writeFileSync(fileC, 'id: ref-c\nprovider: anthropic\nmodel: ref-model-c\nprompt: ref-a.md\nparams: { max_tokens: 1000, temperature: 0, timeout_ms: 5000, max_attempts: 2 }\n');
      const before = await counts();
      const r = await runCliAsync(['judge', 'compare', '--run', 'ref-run', '--judge', fileA(), '--judge', fileC, '--grade'], { env });
      expect(callsTo('ref-model-a')).toBe(0);
      expect(r.stderr).toMatch(/judge ref-c: needs ANTHROPIC_API_KEY/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.code).toBe(2);
      expect(await counts()).toEqual(before);
    }, 240_000);
  });
}
