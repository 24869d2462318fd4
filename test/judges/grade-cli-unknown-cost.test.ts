import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { anthropicResponse } from '../fake-provider/wire.ts';
import { BIN, FIXTURES, ROOT } from '../helpers/cli.ts';
import { fullVerdicts } from './harness.ts';

/**
 * `assay grade`'s text for a grade whose cost is unknown because a call's usage is (docs/data-safety.md,
 * "Calls of unknown cost"): it said "unknown (model not in judges/prices.yaml)" for claude-sonnet-5, which is
 * in it — the wrong reason. It now names the calls and why; a model with no price still says so.
 * Every usage block the fake sends is 1000 input + 200 output tokens.
 */
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

const good = { kind: 'verdicts' as const, output: fullVerdicts() };
const line = (out: string, key: string) => out.split('\n').find((l) => l.startsWith(key))?.replace(/\s+/g, ' ');

describe('assay grade: cost of calls of unknown usage', () => {
  let dir: string;
  let fake: FakeProvider;
  let withoutUsage = false;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'assay-grade-unknown-'));
    fake = await startFakeProvider({
      script: [good],
      routes: {
        'POST /v1/messages': (call, step, c) => {
          const r = anthropicResponse(step(), call, c.cache);
          const body = r.body as { usage?: unknown };
          if (r.status === 200) {
            if (withoutUsage) delete body.usage;
            else body.usage = { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
          }
          return r;
        },
      },
    });
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const grade = async (name: string, model: string) => {
    const judgeFile = join(dir, `${name}.yaml`);
    writeFileSync(judgeFile, `id: ${name}\nprovider: anthropic\nmodel: ${model}\nbaseUrl: ${fake.url}\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 1000, temperature: 0, timeout_ms: 400, max_attempts: 2 }\n`);
    const env = { ANTHROPIC_API_KEY: 'sk-ant-fake', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, `data-${name}`) };
    return runAsync(['grade', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--judge', judgeFile], env);
  };

  it('a timed-out call, then an answered retry: "unknown: 1 call sent and not answered (timeout)", tokens a lower bound', async () => {
    fake.setScript([{ kind: 'hang' }, good]);
    const r = await grade('t-timeout', 'claude-sonnet-5');
    expect(r.code).toBe(0);
    expect(line(r.stdout, 'calls')).toBe('calls 2');
    expect(line(r.stdout, 'tokens')).toBe('tokens at least input 1000, output 200, cache read 0, cache write 0');
    expect(line(r.stdout, 'cost')).toBe('cost unknown: 1 call sent and not answered (timeout)');
  }, 300_000);

  it('a reply without usage: "unknown: 1 reply reported no usage"', async () => {
    fake.setScript([good]);
    withoutUsage = true;
    const r = await grade('t-nousage', 'claude-sonnet-5').finally(() => (withoutUsage = false));
    expect(r.code).toBe(0);
    expect(line(r.stdout, 'tokens')).toBe('tokens at least input 0, output 0, cache read 0, cache write 0');
    expect(line(r.stdout, 'cost')).toBe('cost unknown: 1 reply reported no usage');
  }, 300_000);

  it('a model with no price still says so, and a priced one prints its cost', async () => {
    fake.setScript([good]);
    const unpriced = await grade('t-unpriced', 'claude-nowhere-1');
    expect(line(unpriced.stdout, 'cost')).toBe('cost unknown (model not in judges/prices.yaml)');
    expect(line(unpriced.stdout, 'tokens')).toBe('tokens input 1000, output 200, cache read 0, cache write 0');
    // 1000 × $2 + 200 × $10 per million tokens.
    const priced = await grade('t-priced', 'claude-sonnet-5');
    expect(line(priced.stdout, 'cost')).toBe('cost $0.004000');
  }, 300_000);
});
