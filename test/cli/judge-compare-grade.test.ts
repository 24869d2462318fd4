import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { verdictSet } from '../fake-provider/wire.ts';
import { runCliAsync } from '../helpers/cli.ts';
import { seedMixedRun } from '../services/grading/mixed-run.ts';

/**
 * `assay judge compare --grade` through the binary, with two judges on two model names the fake answers
 * differently: A says barn correct, cow-in-barn correct; B says barn correct, cow-in-barn missing. A has
 * graded two of the run's four graded answers beforehand and B one, so --grade must grade exactly the
 * other five, and the comparison it prints must be the one a read-only compare gives afterwards.
 *
 * Humans label barn correct on d1–d3 and cow-in-barn missing, correct, missing. By hand, on the 6 units:
 * A says correct everywhere — agreement 4/6, p_e = 1 · 4/6, so kappa 0; B agrees on 5/6 with
 * p_e = 3/6 · 4/6 + 3/6 · 2/6 = 1/2, so kappa (5/6 − 1/2)/(1/2) = 2/3; 3 flips (correct→missing), 2 of
 * them toward the human verdict (d1, d3) and 1 away (d2).
 */
describe('assay judge compare --grade', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-jcg-'));
  let fake: FakeProvider;
  let env: NodeJS.ProcessEnv;
  const fileA = join(dir, 'jcg-a.yaml');
  const fileB = join(dir, 'jcg-b.yaml');
  const ids = new Map<string, number>();
  const callsTo = (model: string) => fake.calls.filter((c) => c.body?.model === model).length;

  beforeAll(async () => {
    fake = await startFakeProvider({
      models: {
        'jcg-model-a': [verdictSet({ barn: 'correct', 'cow-in-barn': 'correct', farmer: 'partial' }, ['true', 'true'])],
        'jcg-model-b': [verdictSet({ barn: 'correct', 'cow-in-barn': 'missing', farmer: 'correct' }, ['true', 'false'])],
      },
    });
    env = { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: fake.url, OPENAI_API_KEY: 'sk', OPENAI_BASE_URL: fake.openaiBaseUrl, DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data') };
    for (const [file, id, provider, model] of [[fileA, 'jcg-a', 'openai', 'jcg-model-a'], [fileB, 'jcg-b', 'anthropic', 'jcg-model-b']] as const) {
      writeFileSync(file, `id: ${id}\nprovider: ${provider}\nmodel: ${model}\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n`);
    }
    const db = await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
    try {
      await migrate(db);
      await seedMixedRun(db, 'jcg');
      const r = await db.execute(`select a.id, a.external_id from answers a join runs r on r.id = a.run_id where r.name = 'jcg'`);
      for (const x of r.rows) ids.set(String(x.external_id), Number(x.id));
    } finally {
      await db.close();
    }
    const labels = join(dir, 'labels.jsonl');
    const human = { d1: 'missing', d2: 'correct', d3: 'missing' } as const;
    const rows = Object.entries(human).flatMap(([answer, cow]) => [
      { answer, run: 'jcg', item: 'barn', rater: 'ann', label: 'correct' },
      { answer, run: 'jcg', item: 'cow-in-barn', rater: 'ann', label: cow },
    ]);
    writeFileSync(labels, rows.map((x) => JSON.stringify(x)).join('\n') + '\n');
    expect((await runCliAsync(['import', 'labels', labels], { env })).code).toBe(0);
    // Graded beforehand: A on d1 and d2, B on d1 (one call each).
    for (const [file, answer] of [[fileA, 'd1'], [fileA, 'd2'], [fileB, 'd1']] as const) {
      const g = await runCliAsync(['grade', '--rubric', 'farmyard-54', '--answer', String(ids.get(answer)), '--judge', file], { env });
      expect(g.stderr).toBe('');
      expect(g.code).toBe(0);
    }
    expect([callsTo('jcg-model-a'), callsTo('jcg-model-b')]).toEqual([2, 1]);
  }, 300_000);
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('without --grade: reads what is stored and says how many answers each judge has not graded', async () => {
    const r = await runCliAsync(['judge', 'compare', '--run', 'jcg', '--judge', 'jcg-a', '--judge', 'jcg-b', '--json'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({ units: 2, answers: 1, ungraded: { a: 2, b: 3 }, grading: null });
    const text = await runCliAsync(['judge', 'compare', '--run', 'jcg', '--judge', 'jcg-a', '--judge', 'jcg-b'], { env });
    expect(text.stdout.split('\n')[0]).toBe(
      'Left out for want of a grade (answers of the run without a final grade): jcg-a 2, jcg-b 3; add --grade to grade them first',
    );
    expect(text.stdout).toMatch(/^ungraded answers +jcg-a 2, jcg-b 3$/m);
    expect([callsTo('jcg-model-a'), callsTo('jcg-model-b')]).toEqual([2, 1]);
  }, 300_000);

  it('bad input before anything is graded: an unknown judge file, --concurrency without --grade', async () => {
    const unknown = await runCliAsync(['judge', 'compare', '--run', 'jcg', '--judge', fileA, '--judge', join(dir, 'nope.yaml'), '--grade'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    const conc = await runCliAsync(['judge', 'compare', '--run', 'jcg', '--judge', 'jcg-a', '--judge', 'jcg-b', '--concurrency', '2'], { env });
    expect(conc.code).toBe(2);
    expect(conc.stderr.trim()).toBe('assay judge compare: --concurrency goes with --grade (nothing is graded without it)');
    expect([callsTo('jcg-model-a'), callsTo('jcg-model-b')]).toEqual([2, 1]);
  }, 300_000);

  it('--grade grades exactly the missing answers (A 2, B 3), then compares: the hand-checked figures, equal to a read afterwards', async () => {
    const r = await runCliAsync(['judge', 'compare', '--run', 'jcg', '--judge', fileA, '--judge', fileB, '--grade', '--json'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('grading run jcg with judge jcg-a\n');
    expect(r.stderr).toContain('grading run jcg with judge jcg-b\n');
    expect([callsTo('jcg-model-a'), callsTo('jcg-model-b')]).toEqual([4, 4]);
    const { grading, ...doc } = r.json();
    expect(grading).toEqual({
      a: { judge: 'jcg-a', needed: 2, done: 4, failed: 0, remaining: 0, calls: 4, costUsd: 0, unpricedCalls: 4, unknownCostCalls: 0 },
      b: { judge: 'jcg-b', needed: 3, done: 4, failed: 0, remaining: 0, calls: 4, costUsd: 0, unpricedCalls: 4, unknownCostCalls: 0 },
    });
    expect(doc).toMatchObject({ run: 'jcg', judgeA: 'jcg-a', judgeB: 'jcg-b', units: 6, answers: 3, humanLabelledPairs: 6, ungraded: { a: 0, b: 0 } });
    expect(doc.a.agreement).toBeCloseTo(4 / 6, 12);
    expect(doc.a.kappa.kappa).toBeCloseTo(0, 12);
    expect(doc.b.agreement).toBeCloseTo(5 / 6, 12);
    expect(doc.b.kappa.kappa).toBeCloseTo(2 / 3, 12);
    expect(doc.difference.kappa.estimate).toBeCloseTo(2 / 3, 12);
    expect(doc.flips).toMatchObject({ units: 6, flips: 3, towardHuman: 2, awayFromHuman: 1, neither: 0 });
    expect(doc.flips.items.find((i: { item: string }) => i.item === 'cow-in-barn').transitions).toEqual([{ from: 'correct', to: 'missing', count: 3 }]);
    // Every answer gets the same verdicts from each judge, so all four move by the same F1.
    expect(doc.f1Moves.graded).toBe(4);
    expect(new Set(doc.f1Moves.top.map((m: { delta: number }) => m.delta)).size).toBe(1);

    const read = await runCliAsync(['judge', 'compare', '--run', 'jcg', '--judge', 'jcg-a', '--judge', 'jcg-b', '--json'], { env });
    expect(read.code).toBe(0);
    expect({ ...read.json(), grading: undefined }).toEqual({ ...doc, grading: undefined });

    // Again with --grade: nothing is missing, so no call is made.
    const again = await runCliAsync(['judge', 'compare', '--run', 'jcg', '--judge', fileA, '--judge', fileB, '--grade'], { env });
    expect(again.code).toBe(0);
    expect(again.stdout.split('\n').slice(0, 2)).toEqual([
      'graded jcg-a: 0 answers needed a grade; 4 graded in all, 0 failed, 0 remaining; 4 provider calls, cost unknown (4 calls of a model not in judges/prices.yaml)',
      'graded jcg-b: 0 answers needed a grade; 4 graded in all, 0 failed, 0 remaining; 4 provider calls, cost unknown (4 calls of a model not in judges/prices.yaml)',
    ]);
    expect([callsTo('jcg-model-a'), callsTo('jcg-model-b')]).toEqual([4, 4]);
  }, 300_000);
});
