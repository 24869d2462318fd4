import { randomUUID } from 'node:crypto';
import { storableReply } from './storable-reply.ts';
import type { GradeStatus } from '../domain/grades.ts';
import type { Rubric } from '../domain/rubric.ts';
import { mulberry32, type Rng } from '../stats/random.ts';
import { attemptFailed } from './attempt-failure.ts';
import { callAccounts, emptyTotals, type LedgerAndCache, pendingEstimate } from './call-accounting.ts';
import { type CallGate, callSender } from './call-gate.ts';
import { canonicalJson, type LoadedJudge, resolveJudgeFile, sha256 } from './config.ts';
import { type JudgeOutput, outputJsonSchema } from './contract.ts';
import { unresolvedExamples } from './example-prompt.ts';
import { type Finish, type JudgeIdentity, type JudgeOutcome, LEXICAL_NOTE } from './outcome.ts';
import { meetsReplyRules } from './reply-rules.ts';
import { replyOutcome } from './reply-outcome.ts';
import { loadPrices, type PriceTable } from './prices.ts';
import { assemblePrompt, type AssembledPrompt, type JudgeImage, loadTemplate, type PromptTemplate } from './prompt.ts';
import { DEFAULT_BACKOFF, type BackoffOptions } from './retry.ts';
import type { CachedResponse, JobLease, ResponseCache, UsageLedger } from './store.ts';
import type { Judge, JudgeReply, JudgeRequest } from './types.ts';
import { tracedJudgeCall } from './telemetry.ts';

/**
 * The judge engine: prompt → cache → provider call(s) → validation → an outcome with a status.
 * It never imports the database; the cache and ledger are interfaces. A failure is a status with a
 * reason and never carries verdicts, so nothing downstream can score it. Its parts: the outcome
 * (outcome.ts), each call's ledger row and the grade's totals (call-accounting.ts), what the caller's
 * gate runs for an attempt (call-gate.ts), a failed attempt (attempt-failure.ts) and a reply (reply-outcome.ts).
 */

// Callers import these from the engine.
export type { JudgeIdentity, JudgeOutcome } from './outcome.ts';
export { LEXICAL_NOTE } from './outcome.ts';
export type { CallGate } from './call-gate.ts';
export type { LedgerAndCache } from './call-accounting.ts';
export { pendingEstimate } from './call-accounting.ts';

export interface GradeInput {
  rubric: Rubric;
  answer: string;
  answerId?: string;
  image?: JudgeImage;
  /** The queue job this grade is for: no call is sent once the lease is lost (ledger.begin refuses). */
  lease?: JobLease;
  /**
   * A panel's sample number (1-based): samples after the first are their own cached calls. Sample 1
   * (and a plain judge, which has none) keeps the key it always had, so existing caches stay valid.
   */
  sample?: number;
}

export interface EngineOptions {
  judge: LoadedJudge;
  adapter: Judge;
  cache: ResponseCache;
  ledger: UsageLedger;
  /** Used for the ok call instead of ledger.record then cache.set, when given. */
  ledgerAndCache?: LedgerAndCache;
  /** The price table, or each request's (a batch run: batched requests at the discount, its live re-ask at full price). */
  prices?: PriceTable | ((req: JudgeRequest) => PriceTable);
  /** What a call waits for before it is sent (worker: call slot and rate limit); default none. */
  gate?: CallGate;
  clock?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Seeded generator for backoff jitter. */
  random?: Rng;
  /** Fixed boundary (tests); production draws a fresh random one per request. */
  boundary?: () => string;
  backoff?: BackoffOptions;
}

export interface JudgeEngine {
  readonly identity: JudgeIdentity;
  /** Set once a stop-run failure happened; later grades fail fast with this reason, no calls. */
  readonly stopped: string | null;
  assemble(input: GradeInput): AssembledPrompt;
  grade(input: GradeInput): Promise<JudgeOutcome>;
}

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The response cache key of a request; also how the batch grader (services/grading/batch.ts) finds a
 * verdict already paid for before it pays for a batched request. The random boundary is deliberately
 * not in the key: same content, same cached verdict.
 */
export function responseCacheKey(configHash: string, prompt: Pick<AssembledPrompt, 'promptHash' | 'staticHash'>, answerHash: string, sample?: number): string {
  const keyParts = { judge: configHash, prompt: prompt.promptHash, static: prompt.staticHash, answer: answerHash };
  return sha256(canonicalJson(sample !== undefined && sample > 1 ? { ...keyParts, sample } : keyParts));
}

export function defaultTemplatePath(judge: LoadedJudge): string {
  return resolveJudgeFile(judge, judge.config.prompt ?? `prompts/${judge.config.mode}-v1.md`);
}

export function createJudgeEngine(o: EngineOptions): JudgeEngine {
  const { judge, adapter, cache, ledger } = o;
  const cfg = judge.config;
  const clock = o.clock ?? Date.now;
  const sleep = o.sleep ?? realSleep;
  const rng = o.random ?? mulberry32(0x5eed);
  const pricing = o.prices ?? loadPrices();
  const pricesOf = (req: JudgeRequest): PriceTable => (typeof pricing === 'function' ? pricing(req) : pricing);
  const backoff = o.backoff ?? DEFAULT_BACKOFF;
  // A judge file's examples live in the database: an engine built from the bare file would grade with a
  // prompt (and config hash) that leaves them out, so it is refused instead.
  const unresolved = unresolvedExamples(judge);
  if (unresolved) throw new Error(unresolved);
  const template: PromptTemplate = loadTemplate(defaultTemplatePath(judge));
  const identity: JudgeIdentity = {
    id: cfg.id,
    provider: cfg.provider,
    model: cfg.model,
    mode: cfg.mode,
    configHash: judge.configHash,
    baseline: adapter.baseline,
    ...(adapter.baseline ? { note: LEXICAL_NOTE } : {}),
  };
  let stopped: string | null = null;

  const assemble = (input: GradeInput): AssembledPrompt =>
    assemblePrompt(template, input.rubric, input.answer, {
      ...(o.boundary ? { boundary: o.boundary() } : {}),
      ...(input.image ? { image: input.image } : {}),
      ...(judge.examplesText ? { examples: judge.examplesText } : {}),
    });

  async function grade(input: GradeInput): Promise<JudgeOutcome> {
    const started = clock();
    const prompt = assemble(input);
    const answerHash = sha256(input.answer);
    const cacheKey = responseCacheKey(judge.configHash, prompt, answerHash, input.sample);
    const totals = emptyTotals();
    const base = { promptHash: prompt.promptHash, staticHash: prompt.staticHash, answerHash, cacheKey, neutralised: prompt.neutralised, judge: identity };
    const finish: Finish = (status: GradeStatus, reason: string | null, output: JudgeOutput | null, raw: string | null, extra: Partial<JudgeOutcome> = {}): JudgeOutcome => ({
      status,
      reason,
      output: status === 'ok' ? output : null,
      raw,
      cached: false,
      calls: totals.calls,
      usage: totals.usage,
      costUsd: totals.cost,
      unknownCostCalls: totals.unknownCostCalls,
      unknownCostReasons: { ...totals.unknownCostReasons },
      latencyMs: clock() - started,
      stopRun: false,
      ...base,
      ...extra,
    });
    const cachedOutcome = (hit: CachedResponse): JudgeOutcome => finish('ok', null, hit.output, hit.raw, { cached: true, ...(hit.confidence ? { confidence: hit.confidence } : {}) });

    if (stopped) return finish('provider_error', `run stopped: ${stopped}`, null, null, { stopRun: true });
    // With a combined lookup the cache is read in the first attempt's pending write (inside the gate).
    const combined = ledger.beginUnlessCached?.bind(ledger);
    // An entry checked under older reply rules is a miss (reply-rules.ts): never an ok grade unchecked.
    if (!combined) {
      const hit = await cache.get(cacheKey);
      if (hit && meetsReplyRules(hit)) return cachedOutcome(hit);
    }

    const req: JudgeRequest = {
      mode: cfg.mode,
      rubric: input.rubric,
      prompt,
      answer: input.answer,
      answerHash,
      ...(input.answerId ? { answerId: input.answerId } : {}),
      schema: outputJsonSchema(cfg.mode, input.rubric),
      timeoutMs: cfg.params.timeout_ms,
    };
    const accounts = callAccounts({ judge, adapter, ledger, prices: pricesOf, req, cacheKey, requestId: randomUUID(), answerHash, ...(input.answerId ? { answerId: input.answerId } : {}) }, totals);
    const untrusted = [input.answer, prompt.answerText.slice(prompt.answerText.indexOf(prompt.boundary))];
    let attempt = 0;
    let lastRaw: string | null = null;
    const gate: CallGate = o.gate ?? ((_req, send) => send());
    const sender = callSender({
      ledger,
      ...(combined ? { combined } : {}),
      cacheKey,
      ...(input.lease ? { lease: input.lease } : {}),
      usable: meetsReplyRules,
      pendingEntry: () => accounts.entryFor('pending', pendingEstimate(req, cfg.params.max_tokens), 0),
      call: () => tracedJudgeCall(cfg, () => adapter.call(req)),
      timeoutMs: cfg.params.timeout_ms + 1000,
    });

    for (;;) {
      attempt++;
      totals.calls++;
      const t0 = clock();
      const latencyMs = () => clock() - t0;
      let reply: JudgeReply;
      sender.begun = false;
      try {
        reply = storableReply(await gate(req, sender.send));
      } catch (e) {
        // Nothing was sent (refused at the gate or lease lost): no call to count or record.
        if (!sender.begun) totals.calls--;
        if (sender.cachedHit) return cachedOutcome(sender.cachedHit);
        const next = await attemptFailed(e, {
          attempt,
          maxAttempts: cfg.params.max_attempts,
          begun: sender.begun,
          leaseLost: sender.leaseLost,
          lastRaw,
          latencyMs,
          accounts,
          finish,
          sleep,
          rng,
          backoff,
          stopRun: (message) => {
            stopped = message;
          },
        });
        if (next === 'retry') continue;
        return next;
      }
      lastRaw = reply.text;
      const r = await replyOutcome(reply, { config: cfg, rubric: input.rubric, promptHash: prompt.promptHash, untrusted, cacheKey, reasked: req.reask !== undefined, latencyMs, totals, accounts, ledger, cache, ...(o.ledgerAndCache ? { ledgerAndCache: o.ledgerAndCache } : {}), finish });
      if (!('reask' in r)) return r;
      req.reask = { previous: reply, error: r.reask };
      attempt = 0;
    }
  }

  return {
    identity,
    get stopped() {
      return stopped;
    },
    assemble,
    grade,
  };
}
