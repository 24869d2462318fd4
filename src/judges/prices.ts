import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { badInput } from '../domain/errors.ts';
import { JUDGES_DIR } from './config.ts';
import type { TokenUsage } from './types.ts';

/** Per-model price table (judges/prices.yaml), USD per million tokens. */
const PriceSchema = z
  .object({ input: z.number().min(0), output: z.number().min(0), cache_read: z.number().min(0), cache_write: z.number().min(0) })
  .strict();
export const PriceTableSchema = z.object({ models: z.record(z.string(), PriceSchema) }).strict();
export type PriceTable = z.infer<typeof PriceTableSchema>;

export function loadPrices(path = join(JUDGES_DIR, 'prices.yaml')): PriceTable {
  const r = PriceTableSchema.safeParse(parseYaml(readFileSync(path, 'utf8')));
  if (!r.success) throw badInput(`price table ${path}: ${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`);
  return r.data;
}

/**
 * Cost of one call. `usage.input` counts uncached input only (adapters normalise OpenAI's
 * prompt_tokens, which includes cached tokens, to this). Tokens of an unknown model → null, never a
 * guess; no tokens cost 0 at any price (a replayed verdict, an attempt the provider counted nothing for),
 * so they do not make a run's cost unknown.
 */
export function costUsd(prices: PriceTable, model: string, usage: TokenUsage): number | null {
  const p = Object.hasOwn(prices.models, model) ? prices.models[model] : undefined;
  if (!p) return usage.input + usage.output + usage.cacheRead + usage.cacheWrite === 0 ? 0 : null;
  const micro = usage.input * p.input + usage.output * p.output + usage.cacheRead * p.cache_read + usage.cacheWrite * p.cache_write;
  // Rounded to a billionth of a dollar so sums of costs print without float noise.
  return Number((micro / 1e6).toFixed(9));
}
