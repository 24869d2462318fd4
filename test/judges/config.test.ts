import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { JUDGES_DIR, loadJudge, parseJudgeConfig } from '../../src/judges/config.ts';
import { judgeFileJsonSchemaText } from '../../src/judges/judge-file-schema.ts';
import { isLoadedPanel, loadJudgeOrPanel } from '../../src/judges/panel-config.ts';
import { costUsd, loadPrices } from '../../src/judges/prices.ts';
import { runCli } from '../helpers/cli.ts';

// prices.yaml and families.yaml are tables, not judges.
const judgeFiles = readdirSync(JUDGES_DIR).filter((f) => f.endsWith('.yaml') && f !== 'prices.yaml' && f !== 'families.yaml');

describe('judge configuration files', () => {
  it('judges/schema.json is the schema generated from the zod schemas (judge and panel)', () => {
    expect(readFileSync(join(JUDGES_DIR, 'schema.json'), 'utf8')).toBe(judgeFileJsonSchemaText());
  });

  it.each(judgeFiles)('%s is valid for both the zod schema and the JSON Schema', (f) => {
    const raw = parseYaml(readFileSync(join(JUDGES_DIR, f), 'utf8'));
    const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, validateFormats: false });
    const validate = ajv.compile(JSON.parse(readFileSync(join(JUDGES_DIR, 'schema.json'), 'utf8')));
    expect(validate(raw), JSON.stringify(validate.errors)).toBe(true);
    // A bundled panel (provider: panel) loads through the panel loader, its members with it.
    const j = loadJudgeOrPanel(f.replace(/\.yaml$/, ''));
    expect(j.config.id).toBe(f.replace(/\.yaml$/, ''));
  });

  it('ships the four required judges', () => {
    expect(judgeFiles).toEqual(expect.arrayContaining(['lexical.yaml', 'claude.yaml', 'gpt.yaml', 'local-openai-compatible.yaml']));
    expect(loadJudge('claude').config.provider).toBe('anthropic');
    expect(loadJudge('gpt').config.provider).toBe('openai');
    expect(loadJudge('local-openai-compatible').config.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1/);
  });

  it('rejects bad configs with the field named', () => {
    expect(() => parseJudgeConfig({ id: 'x', provider: 'openai-compatible', model: 'm', prompt: 'p.md' }, 'j.yaml')).toThrow(/j\.yaml: baseUrl: an openai-compatible judge needs baseUrl/);
    expect(() => parseJudgeConfig({ id: 'x', provider: 'anthropic', model: 'm' }, 'j.yaml')).toThrow(/prompt: a anthropic judge needs a prompt template/);
    expect(() => parseJudgeConfig({ id: 'x', provider: 'lexical', model: 'm', colour: 'red' }, 'j.yaml')).toThrow(/colour/);
    expect(() => parseJudgeConfig({ id: 'x', provider: 'gemini', model: 'm' }, 'j.yaml')).toThrow(/provider/);
    expect(() => loadJudge('no-such-judge')).toThrow(/no such judge/);
  });

  it('refuses a field the provider never reads, naming it (before, it was silently ignored)', () => {
    const claude = { id: 'x', provider: 'anthropic', model: 'm', prompt: 'p.md' };
    expect(() => parseJudgeConfig({ ...claude, replay: 'r.jsonl' }, 'j.yaml')).toThrow(/^j\.yaml: replay: only a replay judge reads a replay file; a anthropic judge never would$/);
    expect(() => parseJudgeConfig({ ...claude, lexical: { correct: 0.5 } }, 'j.yaml')).toThrow(/^j\.yaml: lexical: the thresholds are a lexical judge's; a anthropic judge never reads them$/);
    for (const provider of ['lexical', 'replay'] as const) {
      const offline = { id: 'x', provider, model: 'm', ...(provider === 'replay' ? { replay: 'r.jsonl' } : {}) };
      expect(() => parseJudgeConfig({ ...offline, baseUrl: 'http://127.0.0.1:9/v1' }, 'j.yaml')).toThrow(new RegExp(`^j\\.yaml: baseUrl: a ${provider} judge calls no endpoint`));
      expect(() => parseJudgeConfig({ ...offline, apiKeyEnv: 'MY_KEY' }, 'j.yaml')).toThrow(new RegExp(`^j\\.yaml: apiKeyEnv: a ${provider} judge calls no endpoint`));
    }
    expect(parseJudgeConfig({ id: 'x', provider: 'lexical', model: 'm', lexical: { correct: 0.5 } }, 'j.yaml').config.lexical).toEqual({ correct: 0.5, partial: 0.3 });
  });

  it('refuses a prompt template or a temperature on a judge that sends no prompt (lexical, replay), naming the field', () => {
    for (const provider of ['lexical', 'replay'] as const) {
      const offline = { id: 'x', provider, model: 'm', ...(provider === 'replay' ? { replay: 'r.jsonl' } : {}) };
      expect(() => parseJudgeConfig({ ...offline, prompt: 'prompts/rubric-v1.md' }, 'j.yaml')).toThrow(
        new RegExp(`^j\\.yaml: prompt: a ${provider} judge sends no prompt \\(only anthropic, openai and openai-compatible judges read a template\\)$`),
      );
      expect(() => parseJudgeConfig({ ...offline, params: { temperature: 0.7 } }, 'j.yaml')).toThrow(new RegExp(`^j\\.yaml: params\\.temperature: a ${provider} judge samples nothing`));
      // The bundled offline judges' params (temperature 0, the default) stay valid.
      expect(parseJudgeConfig({ ...offline, params: { max_tokens: 1, temperature: 0, timeout_ms: 10000, max_attempts: 1 } }, 'j.yaml').config.params.temperature).toBe(0);
    }
    for (const id of ['lexical', 'lexical-strict', 'lexical-lenient']) expect(loadJudge(id).config.prompt).toBeUndefined();
    expect(parseJudgeConfig({ id: 'x', provider: 'openai', model: 'm', prompt: 'p.md', params: { temperature: 0.7 } }, 'j.yaml').config.params.temperature).toBe(0.7);
  });

  it('assay run with a lexical judge file naming a prompt: exit 2, one line naming the field, nothing opened', () => {
    const dir = mkdtempSync(join(tmpdir(), 'assay-judge-prompt-'));
    try {
      const file = join(dir, 'lex.yaml');
      writeFileSync(file, 'id: lex-prompt\nprovider: lexical\nmodel: lexical-overlap-v1\nprompt: prompts/rubric-v1.md\n');
      const r = runCli(['run', '--run', 'x', '--judge', file], { env: { ASSAY_DATA_DIR: join(dir, 'data'), DATABASE_URL: '' } });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/prompt: a lexical judge sends no prompt/);
      expect(existsSync(join(dir, 'data'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('hashes configs canonically: key order is irrelevant, any parameter change matters', () => {
    const a = parseJudgeConfig({ id: 'x', provider: 'lexical', model: 'm', params: { max_tokens: 10, temperature: 0, timeout_ms: 5, max_attempts: 1 } }, 'a');
    const b = parseJudgeConfig({ params: { max_attempts: 1, timeout_ms: 5, temperature: 0, max_tokens: 10 }, model: 'm', provider: 'lexical', id: 'x' }, 'b');
    const c = parseJudgeConfig({ id: 'x', provider: 'lexical', model: 'm', params: { max_tokens: 11, temperature: 0, timeout_ms: 5, max_attempts: 1 } }, 'c');
    expect(a.configHash).toBe(b.configHash);
    expect(a.configHash).not.toBe(c.configHash);
    expect(a.configHash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('price table', () => {
  const prices = loadPrices();
  it('prices every bundled LLM judge model', () => {
    // A panel costs what its members cost: each member is a judge file of its own, priced here.
    for (const f of judgeFiles.filter((x) => !isLoadedPanel(loadJudgeOrPanel(x.replace(/\.yaml$/, ''))))) {
      const { config } = loadJudge(f.replace(/\.yaml$/, ''));
      if (config.provider !== 'openai-compatible' && config.provider !== 'replay') expect(prices.models[config.model], config.model).toBeDefined();
    }
  });
  it('costs a call from per-million rates (hand-computed)', () => {
    // claude-sonnet-5: 1000×2 + 200×10 + 3000×0.2 + 500×2.5 = 5850 micro-dollars.
    expect(costUsd(prices, 'claude-sonnet-5', { input: 1000, output: 200, cacheRead: 3000, cacheWrite: 500 })).toBe(0.00585);
    // gpt-4.1: 2000×2 + 100×8 + 1024×0.5 = 5312 micro-dollars.
    expect(costUsd(prices, 'gpt-4.1', { input: 2000, output: 100, cacheRead: 1024, cacheWrite: 0 })).toBe(0.005312);
  });
  it('never guesses the cost of an unknown model', () => {
    expect(costUsd(prices, 'mystery-model', { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 })).toBeNull();
  });
});
