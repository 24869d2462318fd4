import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app.ts';
import { openDatabase, type Database } from '../../../src/db/client.ts';
import { defaultJudge } from '../../../src/services/grading/default-judge.ts';
import { createKey } from '../../../src/services/keys.ts';
import { importParsedRubrics } from '../../../src/services/rubrics.ts';
import { type FakeProvider, startFakeProvider } from '../../fake-provider/server.ts';
import { ROOT } from '../../helpers/cli.ts';
import { farmyard, farmyardAnswer, fullVerdicts } from '../../judges/harness.ts';
import { migratedImage } from '../../helpers/pglite-image.ts';

/**
 * One default-judge rule: for each combination of provider keys, the `npm start` banner, the page
 * footer and the judge POST /api/grades actually grades with (no judge named) agree with defaultJudge.
 * Every remote judge here talks to the fake provider (its base URL is part of the combination).
 */

const LEXICAL = 'lexical baseline judge (offline, not an LLM)';
const BLANK = { ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };

describe('default judge', () => {
  let fake: FakeProvider;
  let database: Database;
  const dataDir = mkdtempSync(join(tmpdir(), 'assay-default-judge-'));
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [{ kind: 'verdicts', output: fullVerdicts() }] });
    database = await openDatabase({ memory: true, image: await migratedImage() });
    await importParsedRubrics(database, [farmyard]);
  }, 60_000);
  afterAll(async () => {
    await fake?.close();
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // [what is set, environment, expected judge, expected description]
  const rows = (): Array<[string, Record<string, string>, string, string]> => [
    ['no keys', {}, 'lexical', LEXICAL],
    ['ANTHROPIC_API_KEY', { ANTHROPIC_API_KEY: 'sk-ant-fake', ANTHROPIC_BASE_URL: fake.url }, 'claude', 'claude, Anthropic judge (ANTHROPIC_API_KEY set)'],
    ['OPENAI_API_KEY and OPENAI_BASE_URL', { OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: fake.openaiBaseUrl }, 'gpt', `gpt, OpenAI judge (OPENAI_API_KEY set; endpoint OPENAI_BASE_URL ${fake.openaiBaseUrl})`],
    [
      'OPENAI_BASE_URL alone',
      { OPENAI_BASE_URL: fake.openaiBaseUrl },
      'lexical',
      `${LEXICAL}: OPENAI_BASE_URL is set without OPENAI_API_KEY, which the gpt judge needs; or name a judge file`,
    ],
    ['both keys', { ANTHROPIC_API_KEY: 'sk-ant-fake', ANTHROPIC_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: fake.openaiBaseUrl }, 'claude', 'claude, Anthropic judge (ANTHROPIC_API_KEY set)'],
  ];
  const keysOf = (env: Record<string, string>) => ({
    anthropicApiKey: env.ANTHROPIC_API_KEY,
    anthropicBaseUrl: env.ANTHROPIC_BASE_URL,
    openaiApiKey: env.OPENAI_API_KEY,
    openaiBaseUrl: env.OPENAI_BASE_URL,
  });

  it('the rule itself (OPENAI_API_KEY without an endpoint names none)', () => {
    for (const [, env, ref, description] of rows()) expect(defaultJudge(keysOf(env))).toEqual({ ref, description });
    expect(defaultJudge({ openaiApiKey: 'sk' })).toEqual({ ref: 'gpt', description: 'gpt, OpenAI judge (OPENAI_API_KEY set)' });
  });

  it('page footer and POST /api/grades agree with it for every combination', async () => {
    for (const [what, env, ref, description] of rows()) {
      const app = createApp({ database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000, ...keysOf(env) }, log: () => {} });
      const page = await (await app.request('/login')).text();
      expect(page, what).toContain(`<p class="judge-banner">Judge: ${description}</p>`);
      const key = (await createKey(database, { scopes: ['write'], name: what })).key;
      const r = await app.request('/api/grades', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ answer: `${farmyardAnswer} (${what})`, rubric: 'farmyard-54' }),
      });
      expect(r.status, what).toBe(200);
      const g = (await r.json()) as { status: string; judge: { id: string } };
      expect([what, g.judge.id, g.status]).toEqual([what, ref, 'ok']);
    }
  }, 120_000);

  /** Starts `npm start`'s entry on port 0 and resolves with its stdout once it listens; then stops it. */
  function banner(env: Record<string, string>): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['bin/launch.mjs', 'main'], { cwd: ROOT, env: { ...process.env, ...BLANK, ...env, DATABASE_URL: '', ASSAY_DATA_DIR: dataDir, PORT: '0' } });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (/listening on /.test(out)) {
          child.removeAllListeners('exit');
          child.once('exit', () => resolve(out));
          child.kill('SIGTERM');
        }
      });
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.once('exit', (code) => reject(new Error(`exited ${code} before listening: ${err}${out}`)));
    });
  }

  it('the npm start banner agrees with it for every combination', async () => {
    for (const [what, env, , description] of rows()) {
      const out = await banner(env);
      expect(out.split('\n'), what).toContain(`Judge: ${description}`);
    }
  }, 300_000);
});
