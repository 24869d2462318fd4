import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { runCliAsync } from '../helpers/cli.ts';
import { farmyard } from '../judges/harness.ts';
import { seedMixedRun } from '../services/grading/mixed-run.ts';

/**
 * The reliability table of `assay calibrate --run R --judge J`, end to end: `assay run` grades a run with
 * an OpenAI judge that asks for log-probabilities (the fake answers barn correct at p .9, cow-in-barn
 * partial at p .6, every other item missing at p 1), then humans label:
 *   d1: barn correct ×2 (agrees, .9); cow-in-barn partial ×2 (agrees, .6)
 *   d2: barn correct ×2 (agrees, .9); cow-in-barn missing ×2 (disagrees, .6)
 *   d3: barn correct ×2 (agrees, .9); cow-in-barn correct, missing (tie: left out)
 * Points: .9 ×3 all agreeing → bin [.9, 1]: n 3, mean .9, agreement 1; .6 ×2 → bin [.6, .7): n 2, mean .6,
 * agreement .5. ECE = 3/5·|1 − .9| + 2/5·|.5 − .6| = .06 + .04 = .1. Unlabelled graded items: d1–d3 have 15
 * each, dts1 all 17 → 62.
 */
describe('assay calibrate --run R --judge J: the reliability table', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-calib-rel-'));
  let fake: FakeProvider;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const step = { kind: 'verdict-set' as const, verdicts: { barn: 'correct', 'cow-in-barn': 'partial' } as const, claims: [{ text: 'c', verdict: 'true' as const }], confidence: { barn: 0.9, 'cow-in-barn': 0.6 } };
    fake = await startFakeProvider({ models: { 'gpt-4.1': [step] } });
    env = { OPENAI_API_KEY: 'sk', OPENAI_BASE_URL: fake.openaiBaseUrl, DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data') };
    writeFileSync(join(dir, 'r-gpt.yaml'), 'id: r-gpt\nprovider: openai\nmodel: gpt-4.1\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2, logprobs: true }\n');
    const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
    try {
      await migrate(database);
      await seedMixedRun(database, 'rel-run');
    } finally {
      await database.close();
    }
    const r = await runCliAsync(['run', '--run', 'rel-run', '--judge', join(dir, 'r-gpt.yaml'), '--json'], { env });
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.json()).toMatchObject({ total: 4, done: 4, failed: 0 });
    const L = (answer: string, item: string, rater: string, label: string) => JSON.stringify({ answer, run: 'rel-run', item, rater, label });
    const rows = [
      ...['d1', 'd2', 'd3'].flatMap((a) => ['ann', 'bob'].map((h) => L(a, 'barn', h, 'correct'))),
      L('d1', 'cow-in-barn', 'ann', 'partial'),
      L('d1', 'cow-in-barn', 'bob', 'partial'),
      L('d2', 'cow-in-barn', 'ann', 'missing'),
      L('d2', 'cow-in-barn', 'bob', 'missing'),
      L('d3', 'cow-in-barn', 'ann', 'correct'),
      L('d3', 'cow-in-barn', 'bob', 'missing'),
    ];
    writeFileSync(join(dir, 'labels.jsonl'), rows.join('\n') + '\n');
    expect((await runCliAsync(['import', 'labels', join(dir, 'labels.jsonl')], { env })).code).toBe(0);
  }, 300_000);
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--json reliability: bins, n, ECE and what was left out; the text table', async () => {
    const r = await runCliAsync(['calibrate', '--run', 'rel-run', '--judge', 'r-gpt', '--scale', 'verdict', '--json'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = r.json();
    const rel = doc.reliability;
    expect(rel.n).toBe(5);
    expect(rel.bins).toHaveLength(10);
    expect(rel.bins.filter((b: { n: number }) => b.n > 0)).toEqual([
      { lo: 0.6, hi: 0.7, n: 2, meanConfidence: expect.closeTo(0.6, 12), agreement: 0.5 },
      { lo: 0.9, hi: 1, n: 3, meanConfidence: expect.closeTo(0.9, 12), agreement: 1 },
    ]);
    expect(rel.ece).toBeCloseTo(0.1, 12);
    expect(rel.leftOut).toEqual({ noConfidence: 0, noHumanLabel: 3 * (farmyard.items.length - 2) + farmyard.items.length, humanTie: 1, humanNotAVerdict: 0, examples: 0 });
    // A plain judge is no shuffled panel.
    expect(doc.orderSensitivity).toBeNull();

    const text = await runCliAsync(['calibrate', '--run', 'rel-run', '--judge', 'r-gpt', '--scale', 'verdict'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('\n\nJudge r-gpt: reliability of its item confidence against the human majority (5 items with a confidence and a human majority; ECE 0.100)\nconfidence');
    expect(text.stdout).toMatch(/\n\[0\.6, 0\.7\)\s+2\s+0\.600\s+0\.500\n/);
    expect(text.stdout).toMatch(/\n\[0\.9, 1\.0\]\s+3\s+0\.900\s+1\.000\n?/);
  }, 300_000);
});
