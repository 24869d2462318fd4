import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { runCliAsync } from '../helpers/cli.ts';
import { anchoredScript, seedAnchored } from './anchored-fixture.ts';

/**
 * Anchored judges through the CLI: `assay calibrate --run R --judge J` says how many example answers it
 * left out (text and --json, with the kappa of the hand-worked case), and every refusal is exit 2 with
 * one line and nothing on stdout.
 */
describe('anchored judges through the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-anchored-cli-'));
  let fake: FakeProvider;
  let env: NodeJS.ProcessEnv;
  let ids: Map<string, number>;
  const head = (id: string, provider = 'anthropic', extra = '') =>
    `id: ${id}\nprovider: ${provider}\nmodel: ${provider === 'lexical' ? 'lexical' : 'claude-sonnet-5'}\n${provider === 'anthropic' ? 'prompt: prompts/rubric-v1.md\n' : ''}${extra}params: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n`;
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const anchored = join(dir, 'anchored.yaml');

  beforeAll(async () => {
    fake = await startFakeProvider({ script: anchoredScript });
    env = { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: fake.url, DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data') };
    write('anchored.yaml', `${head('anchored')}examples:\n  - { run: anch, answer: e1 }\n  - { run: anch, answer: e2 }\n`);
    const db = await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
    try {
      await migrate(db);
      ids = await seedAnchored(db);
      const keys = { anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url };
      for (const id of ['e1', 'e2', 'x1', 'x2', 'x3']) {
        await gradeAnswer(db, { judge: anchored, keys, engine: { sleep: async () => {}, random: mulberry32(1) }, answer: { id: ids.get(id)! } });
      }
    } finally {
      await db.close();
    }
  });
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('assay calibrate --run --judge reports the excluded examples and the kappa without them', async () => {
    const json = await runCliAsync(['calibrate', '--run', 'anch', '--judge', 'anchored', '--scale', 'verdict', '--json'], { env });
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const report = json.json();
    expect(report.excludedExamples).toBe(2);
    expect(report.judgeReports[0].vsMajority.n).toBe(6);
    expect(report.judgeReports[0].vsMajority.kappa.kappa).toBeCloseTo(13 / 25, 12);
    const text = await runCliAsync(['calibrate', '--run', 'anch', '--judge', 'anchored', '--scale', 'verdict'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Excluded examples: 2 answer(s) of the run that anchored was shown as examples are left out of its figures');
  });

  it.each([
    ['a lexical judge', () => write('lex.yaml', `${head('lex', 'lexical')}examples:\n  - { run: anch, answer: e1 }\n`), (p: string) => `judge ${p}: examples: a lexical judge has no prompt to show examples in (only anthropic, openai and openai-compatible judges take examples)`],
    [
      'a reference-match judge',
      () => write('rm.yaml', `${head('rm', 'anthropic', 'mode: reference-match\n')}examples:\n  - { run: anch, answer: e1 }\n`.replace('rubric-v1', 'reference-match-v1')),
      (p: string) => `judge ${p}: examples: examples carry rubric item verdicts; a reference-match judge grades no items (only rubric judges take examples)`,
    ],
    ['a panel', () => write('pan.yaml', 'id: pan\nprovider: panel\nmembers: [anchored]\nexamples:\n  - { run: anch, answer: e1 }\n'), (p: string) => `panel ${p}: examples: a panel has no prompt of its own; list the examples on its member judges`],
    ['an id in a run without the run', () => write('norun.yaml', `${head('norun')}examples:\n  - { answer: e1 }\n`), (p: string) => `judge ${p}: examples.0.answer: 'e1' is an id in a run: give run too (or the database answer id, a number)`],
    ['an unknown answer', () => write('unknown.yaml', `${head('unknown')}examples:\n  - { run: anch, answer: zz }\n`), () => "judge unknown: examples[0]: run 'anch' has no answer 'zz'"],
    ['an unreadable labels file', () => write('nofile.yaml', `${head('nofile')}examples:\n  - { labels: none.jsonl, run: anch }\n`), () => `judge nofile: examples[0]: labels ${join(dir, 'none.jsonl')}: no such file`],
  ])('refuses examples on %s: exit 2, one line', async (_, make, message) => {
    const path = make();
    const r = await runCliAsync(['run', '--run', 'anch', '--judge', path], { env });
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`assay run: ${message(path)}`);
    expect(r.code).toBe(2);
  });
});
