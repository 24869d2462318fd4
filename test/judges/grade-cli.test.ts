import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { BIN, FIXTURES, ROOT, runCli } from '../helpers/cli.ts';
import { fullVerdicts } from './harness.ts';

/** `assay grade` through the real binary. The fake provider lives in this process, so spawn async. */
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

const NO_KEYS = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '' };

describe('assay grade', () => {
  let dir: string;
  let fake: FakeProvider;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'assay-grade-'));
    fake = await startFakeProvider({ script: [{ kind: 'verdicts', output: fullVerdicts() }] });
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('grades farmyard through a judge file with baseUrl (fake Anthropic) and prints 0.5814 / 0.7857 / 0.6683', async () => {
    const judgeFile = join(dir, 'fake-claude.yaml');
    writeFileSync(judgeFile, `id: fake-claude\nprovider: anthropic\nmodel: claude-sonnet-5\nbaseUrl: ${fake.url}\nprompt: prompts/rubric-v1.md\n`);
    const env = { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-ant-fake', ASSAY_DATA_DIR: join(dir, 'data') };
    const args = ['grade', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--judge', judgeFile];
    const r = await runAsync([...args, '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    // The one grade shape (docs/grades.md), the same as POST /api/grades.
    expect(Object.keys(doc)).toEqual(['gradeId', 'answerId', 'status', 'completeness', 'correctness', 'f1', 'items', 'claims', 'meta', 'usage', 'judge', 'rubric', 'createdAt', 'panel']);
    expect(doc.rubric).toEqual({ id: 'farmyard-54', version: 1 });
    expect([doc.completeness, doc.correctness, doc.f1].map((x: number) => x.toFixed(4))).toEqual(['0.5814', '0.7857', '0.6683']);
    expect(Object.keys(doc.items[0])).toEqual(['id', 'weight', 'verdict', 'evidence', 'points', 'confidence', 'confidenceSource']);
    // Anthropic returns no log-probabilities: no confidence.
    expect(doc.items[0]).toMatchObject({ confidence: null, confidenceSource: null });
    expect(doc.usage.calls).toBe(1);
    expect(fake.calls).toHaveLength(1);
    // Same answer again, readable output: the stored cache answers, no provider call.
    const again = await runAsync(args, env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/completeness\s+0\.5814/);
    expect(again.stdout).toMatch(/correctness\s+0\.7857/);
    expect(again.stdout).toMatch(/f1\s+0\.6683/);
    expect(again.stdout).toContain('cached verdict, no provider call');
    expect(fake.calls).toHaveLength(1);
  }, 300_000);

  it('without provider keys uses the lexical baseline and says so', async () => {
    const r = await runAsync(['grade', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--json'], {
      ...NO_KEYS,
      ASSAY_DATA_DIR: join(dir, 'data'),
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.judge).toMatchObject({ id: 'lexical', provider: 'lexical', baseline: true });
    expect(doc.judge.note).toMatch(/floor, not an LLM judge/);
    expect(doc.status).toBe('ok');
  }, 300_000);

  it('exits 1 with null scores when the judge fails (a status, never a score)', async () => {
    fake.setScript([{ kind: 'refusal', text: 'no' }]);
    const judgeFile = join(dir, 'fake-gpt.yaml');
    writeFileSync(judgeFile, `id: fake-gpt\nprovider: openai\nmodel: gpt-4.1\nbaseUrl: ${fake.openaiBaseUrl}\nprompt: prompts/rubric-v1.md\n`);
    const r = await runAsync(['grade', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--judge', judgeFile, '--json'], {
      ...NO_KEYS,
      OPENAI_API_KEY: 'sk-fake',
      ASSAY_DATA_DIR: join(dir, 'data'),
    });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.status).toBe('refused');
    expect([doc.completeness, doc.correctness, doc.f1]).toEqual([null, null, null]);
    expect(doc.meta.reason).toMatch(/refus/);
  }, 300_000);

  it.each([
    [['--rubric', 'missing.yaml', '--answer', 'x'], /rubric missing\.yaml: no such file/],
    [['--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', 'nope.txt'], /answer nope\.txt: no such file/],
    [['--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--judge', 'nobody'], /judge nobody: no such judge/],
    [['--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--judge', 'claude'], /needs ANTHROPIC_API_KEY/],
    [['--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--image', 'x.bmp'], /image x\.bmp: unsupported type/],
  ])('bad input %j exits 2 with one line', (args, message) => {
    const r = runCli(['grade', ...args], { env: { ...NO_KEYS, ASSAY_DATA_DIR: join(dir, 'untouched') } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  }, 120_000);
});
