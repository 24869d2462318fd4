import type { Rubric } from '../domain/rubric.ts';
import type { CallAccounts, CallTotals, LedgerAndCache } from './call-accounting.ts';
import type { JudgeConfig } from './config.ts';
import { validateOutput } from './contract.ts';
import { keptConfidence } from './logprob-confidence.ts';
import type { Finish, JudgeOutcome } from './outcome.ts';
import { parseReply } from './parse.ts';
import { REPLY_RULES_VERSION } from './reply-rules.ts';
import type { CachedResponse, ResponseCache, UsageLedger } from './store.ts';
import type { JudgeReply } from './types.ts';

/**
 * What a reply becomes: truncated or refused as the provider said, else parsed and validated — valid
 * verdicts are recorded and cached (the ok grade), invalid ones are re-asked once, then a parse_failure.
 */

export interface ReplyContext {
  config: Pick<JudgeConfig, 'mode' | 'model' | 'params'>;
  rubric: Rubric;
  promptHash: string;
  /** The answer, and the fenced part of the prompt: text the reply may echo that must not count as its JSON. */
  untrusted: string[];
  cacheKey: string;
  /** Whether this reply answered the re-ask (then an invalid one is final). */
  reasked: boolean;
  latencyMs: () => number;
  totals: CallTotals;
  accounts: CallAccounts;
  ledger: UsageLedger;
  cache: ResponseCache;
  ledgerAndCache?: LedgerAndCache;
  finish: Finish;
}

/** The grade's outcome, or the validation error to re-ask with. */
export async function replyOutcome(reply: JudgeReply, c: ReplyContext): Promise<JudgeOutcome | { reask: string }> {
  const { config: cfg, finish } = c;
  if (reply.stop === 'truncated') {
    await c.accounts.record('truncated', reply.usage, c.latencyMs());
    return finish('truncated', `output cut off at max_tokens=${cfg.params.max_tokens} (${reply.stopDetail ?? 'length'})`, null, reply.text);
  }
  if (reply.stop === 'refused') {
    await c.accounts.record('refused', reply.usage, c.latencyMs());
    return finish('refused', `the judge refused: ${reply.stopDetail ?? 'no reason given'}`, null, reply.text);
  }
  const parsed = parseReply(reply, c.untrusted);
  const v = parsed.ok ? validateOutput(cfg.mode, c.rubric, parsed.value) : parsed;
  if (v.ok) {
    const entry = c.accounts.account('ok', reply.usage, c.latencyMs());
    // Kept with the verdicts (and in the cache with them), so a cached grade has the same confidence.
    const confidence = 'items' in v.output ? keptConfidence(reply.confidence, v.output.items) : undefined;
    const { usage, calls } = c.totals;
    const value: CachedResponse = { output: v.output, raw: reply.text, stop: reply.stop, usage, calls, model: cfg.model, promptHash: c.promptHash, ...(confidence ? { confidence } : {}), replyRules: REPLY_RULES_VERSION };
    if (c.ledgerAndCache) await c.ledgerAndCache.recordAndCache(entry, c.cacheKey, value);
    else {
      await c.ledger.record(entry);
      await c.cache.set(c.cacheKey, value);
    }
    return finish('ok', null, v.output, reply.text, confidence ? { confidence } : {});
  }
  await c.accounts.record('invalid_output', reply.usage, c.latencyMs(), v.error);
  if (c.reasked) return finish('parse_failure', `invalid output after one re-ask: ${v.error}`, null, reply.text);
  return { reask: v.error };
}
