import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { z } from 'zod';
import { badInput } from '../domain/errors.ts';
import { readInputText } from '../input/text-file.ts';
import { parseYamlInput } from '../input/yaml.ts';
import { JudgeExamplesSchema } from './example-refs.ts';
import type { JudgeExample } from './example-prompt.ts';
import { projectPath } from '../paths.ts';

/**
 * Judge configuration files (judges/*.yaml, design §4). The zod schema is the source of truth;
 * judges/schema.json is generated from it and the panel schema by src/judges/judge-file-schema.ts
 * (test/judges/config.test.ts asserts they agree).
 */
export const JUDGE_PROVIDERS = ['anthropic', 'openai', 'openai-compatible', 'lexical', 'replay'] as const;
export const JUDGE_MODES = ['rubric', 'reference-match'] as const;
export type JudgeProvider = (typeof JUDGE_PROVIDERS)[number];
export type JudgeMode = (typeof JUDGE_MODES)[number];

export const JudgeParamsSchema = z
  .object({
    max_tokens: z.number().int().positive().default(4096),
    temperature: z.number().min(0).max(2).default(0),
    timeout_ms: z.number().int().positive().default(120_000),
    max_attempts: z.number().int().min(1).max(10).default(4),
    logprobs: z.boolean().optional().describe('openai and openai-compatible: ask for token log-probabilities and keep each item verdict\'s probability'),
    top_logprobs: z.number().int().min(0).max(20).optional().describe('with logprobs: alternatives per token; 2 or more gives each item a distribution over the verdicts'),
  })
  .strict();

export const JudgeConfigSchema = z
  .object({
    id: z.string().min(1).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'judge ids are letters, digits, . _ -'),
    description: z.string().optional(),
    provider: z.enum(JUDGE_PROVIDERS),
    model: z.string().min(1),
    mode: z.enum(JUDGE_MODES).default('rubric'),
    prompt: z.string().min(1).optional().describe('prompt template file, relative to judges/'),
    baseUrl: z.url().optional().describe('endpoint for openai-compatible servers (or a proxy)'),
    apiKeyEnv: z.string().optional().describe('environment variable holding the key (default by provider)'),
    replay: z.string().optional().describe('replay judges: JSON or JSONL file of recorded verdicts'),
    lexical: z
      .object({ correct: z.number().min(0).max(1).default(0.6), partial: z.number().min(0).max(1).default(0.3) })
      .strict()
      .optional(),
    params: JudgeParamsSchema.default({ max_tokens: 4096, temperature: 0, timeout_ms: 120_000, max_attempts: 4 }),
    examples: JudgeExamplesSchema.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const llm = c.provider === 'anthropic' || c.provider === 'openai' || c.provider === 'openai-compatible';
    if (llm && !c.prompt) ctx.addIssue({ code: 'custom', path: ['prompt'], message: `a ${c.provider} judge needs a prompt template` });
    if (c.provider === 'openai-compatible' && !c.baseUrl) {
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'an openai-compatible judge needs baseUrl' });
    }
    if (c.provider === 'replay' && !c.replay) ctx.addIssue({ code: 'custom', path: ['replay'], message: 'a replay judge needs a replay file' });
    // A field the provider never reads is refused, not ignored: the user meant another judge than the one graded.
    if (c.replay !== undefined && c.provider !== 'replay') ctx.addIssue({ code: 'custom', path: ['replay'], message: `only a replay judge reads a replay file; a ${c.provider} judge never would` });
    if (c.lexical !== undefined && c.provider !== 'lexical') ctx.addIssue({ code: 'custom', path: ['lexical'], message: `the thresholds are a lexical judge's; a ${c.provider} judge never reads them` });
    // A lexical or replay judge sends no prompt and samples nothing: its verdicts would be the same with any
    // template or temperature, so one given is a judge the user did not get (the bundled files' 0 is the default).
    if (c.prompt !== undefined && !llm) ctx.addIssue({ code: 'custom', path: ['prompt'], message: `a ${c.provider} judge sends no prompt (only anthropic, openai and openai-compatible judges read a template)` });
    if (c.params.temperature !== 0 && !llm) ctx.addIssue({ code: 'custom', path: ['params', 'temperature'], message: `a ${c.provider} judge samples nothing: its verdicts are the same at any temperature (leave it out or 0)` });
    for (const f of ['baseUrl', 'apiKeyEnv'] as const) {
      if (c[f] !== undefined && !llm) ctx.addIssue({ code: 'custom', path: [f], message: `a ${c.provider} judge calls no endpoint (only anthropic, openai and openai-compatible judges do)` });
    }
    if ((c.params.logprobs || c.params.top_logprobs !== undefined) && c.provider !== 'openai' && c.provider !== 'openai-compatible') {
      ctx.addIssue({ code: 'custom', path: ['params', c.params.logprobs ? 'logprobs' : 'top_logprobs'], message: `only openai and openai-compatible judges return token log-probabilities, not ${c.provider}` });
    }
    if (c.params.top_logprobs !== undefined && !c.params.logprobs) ctx.addIssue({ code: 'custom', path: ['params', 'top_logprobs'], message: 'needs logprobs: true' });
    // Examples are shown in a prompt with item verdicts: a judge without a prompt, or without items, cannot show them.
    if (c.examples && !llm) ctx.addIssue({ code: 'custom', path: ['examples'], message: `a ${c.provider} judge has no prompt to show examples in (only anthropic, openai and openai-compatible judges take examples)` });
    else if (c.examples && c.mode !== 'rubric') ctx.addIssue({ code: 'custom', path: ['examples'], message: `examples carry rubric item verdicts; a ${c.mode} judge grades no items (only rubric judges take examples)` });
  });

export type JudgeConfig = z.infer<typeof JudgeConfigSchema>;
export type JudgeParams = z.infer<typeof JudgeParamsSchema>;

/** The bundled judges/ directory (configs, prompt templates, prices). */
export const JUDGES_DIR = projectPath('judges') + sep;

/** A loaded judge: its parsed config plus where relative paths (prompt, replay file) resolve from. */
export interface LoadedJudge {
  config: JudgeConfig;
  /** Directory of the judge file; prompt and replay paths are relative to it (then to judges/). */
  baseDir: string;
  /**
   * sha256 of the canonical config JSON: the judges.config_hash column and part of every cache key. With
   * examples, over the config and the rendered examples too (example-prompt.ts attachExamples).
   */
  configHash: string;
  /** The `examples:` of the file, resolved against the database (services/grading/judge-examples.ts). */
  examples?: JudgeExample[];
  /** Those examples as the prompt shows them (the static block). */
  examplesText?: string;
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

export function parseJudgeConfig(raw: unknown, where: string, baseDir = JUDGES_DIR): LoadedJudge {
  const r = JudgeConfigSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw badInput(`${where}: ${i.path.length ? i.path.join('.') + ': ' : ''}${i.message}`);
  }
  return { config: r.data, baseDir, configHash: sha256(canonicalJson(r.data)) };
}

/**
 * `ref` is a judge id in judges/ (`claude` → judges/claude.yaml) or a path to a judge file.
 * Bad references are bad input (exit 2), naming the file.
 */
export function loadJudge(ref: string, dir = JUDGES_DIR): LoadedJudge {
  const byId = join(dir, `${ref}.yaml`);
  const path = /[\\/]|\.ya?ml$|\.json$/i.test(ref) ? resolve(ref) : byId;
  if (!existsSync(path)) throw badInput(`judge ${ref}: no such judge (not an id in judges/ nor a file)`);
  // Alias budget, size cap, UTF-8 and the JSON nesting rules (src/input): one bad-input line each.
  const raw = parseYamlInput(readInputText(path, { what: 'judge' }), `judge ${path}`);
  return parseJudgeConfig(raw, `judge ${path}`, dirname(path));
}

/** A judge by id in judges/ only — for requests from the network, which must never name a file. */
export function loadJudgeById(id: string, dir = JUDGES_DIR): LoadedJudge {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(id)) throw badInput(`judge ${id}: not a judge id`);
  return loadJudge(id, dir);
}

/** Resolve a file named by a judge config: relative to the judge file first, then to judges/. */
export function resolveJudgeFile(judge: LoadedJudge, file: string): string {
  if (isAbsolute(file)) return file;
  const local = join(judge.baseDir, file);
  return existsSync(local) ? local : join(JUDGES_DIR, file);
}
