import { randomUUID } from 'node:crypto';
import { storableReply } from './storable-reply.ts';
import type { GradeStatus } from '../domain/grades.ts';
import type { Rubric } from '../domain/rubric.ts';
import { mulberry32, type Rng } from '../stats/random.ts';
import { canonicalJson, type LoadedJudge, resolveJudgeFile, sha256 } from './config.ts';
import { type JudgeOutput, outputJsonSchema, validateOutput } from './contract.ts';
import { unresolvedExamples } from './example-prompt.ts';
import { keptConfidence } from './logprob-confidence.ts';
import { parseReply } from './parse.ts';
import { meetsReplyRules, REPLY_RULES_VERSION } from './reply-rules.ts';
import { loadPrices, costUsd, type PriceTable } from './prices.ts';
import { assemblePrompt, type AssembledPrompt, type JudgeImage, loadTemplate, type PromptTemplate } from './prompt.ts';
import { DEFAULT_BACKOFF, retryDelayMs, type BackoffOptions } from './retry.ts';
import type { CachedResponse, JobLease, LedgerEntry, ResponseCache, UsageLedger } from './store.ts';
import { addUsage, type Judge, type JudgeReply, type JudgeRequest, ProviderCallError, type TokenUsage, type UnknownCostReasons, type UsageUnknownReason, ZERO_USAGE } from './types.ts';
import { tracedJudgeCall } from './telemetry.ts';

/**
 * The judge engine: prompt → cache → provider call(s) → validation → an outcome with a status.
 * It never imports the database; the cache and ledger are interfaces. A failure is a status with a
 * reason and never carries verdicts, so nothing downstream can score it.
 */

export interface JudgeIdentity {
  id: string;
  provider: string;
  model: string;
  mode: string;
  configHash: string;
  /** True for the lexical baseline: a floor, not a judge. */
  baseline: boolean;
  note?: string;
}

export interface JudgeOutcome {
  status: GradeStatus;
  reason: string | null;
  /** Validated verdicts; null whenever status is not ok. */
  output: JudgeOutput | null;
  raw: string | null;
  cached: boolean;
  /** Provider calls made for this answer (0 on a cache hit). */
  calls: number;
  /** Tokens of the calls whose usage the provider reported (those of unknown cost are not in it). */
  usage: TokenUsage;
  /** Null when a call's model has no price or any call's cost is unknown (unknownCostCalls). */
  costUsd: number | null;
  /**
   * Calls sent whose tokens are unknown (a timeout, a lost connection, a reply without usage): most likely
   * billed, so the cost is unknown, never $0 (docs/data-safety.md, "Calls of unknown cost").
   */
  unknownCostCalls: number;
  /** unknownCostCalls by reason (timeout | aborted | no_usage): what `assay grade` and the grade page tell. */
  unknownCostReasons: UnknownCostReasons;
  latencyMs: number;
  promptHash: string;
  staticHash: string;
  answerHash: string;
  cacheKey: string;
  neutralised: number;
  /** The failure means every later call would fail too (auth, quota): the run must stop. */
  stopRun: boolean;
  /** The input's job lease was lost before a call (another worker holds the job): nothing was sent. */
  leaseLost?: boolean;
  judge: JudgeIdentity;
  /** Ok only: item id → probability of its verdict, when the provider returned token log-probabilities (docs/grades.md#confidence). */
  confidence?: Record<string, number>;
}

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

/**
 * Runs `send` when the caller's limits allow (a call slot, the shared rate limit). The pending ledger
 * row is written inside `send`, so a call waiting at the gate has no row yet and a kill while waiting
 * leaves nothing unsettled that was never sent.
 */
export type CallGate = (req: JudgeRequest, send: () => Promise<JudgeReply>) => Promise<JudgeReply>;

/**
 * Writes a paid call's ledger row and its verdict to the cache at once (one statement): a crash can no
 * longer fall between the two, where the call is recorded but not cached and a redelivery pays again.
 */
export interface LedgerAndCache {
  recordAndCache(entry: LedgerEntry, key: string, value: CachedResponse): Promise<void>;
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

export const LEXICAL_NOTE = 'lexical word-overlap baseline: an offline floor, not an LLM judge';

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Race the adapter against a backstop timer, so a call that ignores its own timeout still ends. */
async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const backstop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderCallError('retryable', `timeout: no reply within ${ms} ms`, undefined, undefined, 'timeout')), ms);
  });
  try {
    return await Promise.race([p, backstop]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Usage held by a pending row until the provider's figures settle it, meant to over-count: every UTF-8
 * byte of the prompt text as an uncached input token (a token covers at least one byte; an image is not
 * counted) and the whole output budget.
 */
export function pendingEstimate(req: JudgeRequest, maxTokens: number): TokenUsage {
  const p = req.prompt;
  const text = [p.system, p.staticText, p.answerText, req.reask?.previous.text ?? '', req.reask?.error ?? ''];
  const bytes = text.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
  return { input: bytes, output: maxTokens, cacheRead: 0, cacheWrite: 0 };
}

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
    let usage: TokenUsage = { ...ZERO_USAGE };
    let cost: number | null = 0;
    let calls = 0;
    let unknownCostCalls = 0;
    const unknownCostReasons: UnknownCostReasons = {};
    const base = { promptHash: prompt.promptHash, staticHash: prompt.staticHash, answerHash, cacheKey, neutralised: prompt.neutralised, judge: identity };
    const finish = (status: GradeStatus, reason: string | null, output: JudgeOutput | null, raw: string | null, extra: Partial<JudgeOutcome> = {}): JudgeOutcome => ({
      status,
      reason,
      output: status === 'ok' ? output : null,
      raw,
      cached: false,
      calls,
      usage,
      costUsd: cost,
      unknownCostCalls,
      unknownCostReasons: { ...unknownCostReasons },
      latencyMs: clock() - started,
      stopRun: false,
      ...base,
      ...extra,
    });

    if (stopped) return finish('provider_error', `run stopped: ${stopped}`, null, null, { stopRun: true });
    // With a combined lookup the cache is read in the first attempt's pending write (inside the gate).
    const combined = ledger.beginUnlessCached?.bind(ledger);
    // An entry checked under older reply rules is a miss (reply-rules.ts): never an ok grade unchecked.
    if (!combined) {
      const hit = await cache.get(cacheKey);
      if (hit && meetsReplyRules(hit)) return finish('ok', null, hit.output, hit.raw, { cached: true, ...(hit.confidence ? { confidence: hit.confidence } : {}) });
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
    const requestId = randomUUID();
    const untrusted = [input.answer, prompt.answerText.slice(prompt.answerText.indexOf(prompt.boundary))];
    let attempt = 0;
    let lastRaw: string | null = null;

    // A call of unknown usage keeps the pending estimate in its row (the columns take a number: an upper
    // bound, not a count), with a null cost and the reason; it adds nothing to the grade's tokens.
    const entryFor = (status: string, u: TokenUsage | null, latencyMs: number, error?: string, unknown?: UsageUnknownReason): LedgerEntry => {
      const why = u === null ? (unknown ?? 'no_usage') : undefined;
      const figures = u ?? pendingEstimate(req, cfg.params.max_tokens);
      return {
        callKey: adapter.sharedCallKey?.(req) ?? `${cacheKey.slice(0, 16)}:${requestId}:${calls}`,
        provider: cfg.provider,
        model: cfg.model,
        judgeId: cfg.id,
        judgeConfigHash: judge.configHash,
        answerHash,
        ...(input.answerId ? { answerId: input.answerId } : {}),
        usage: figures,
        costUsd: why ? null : costUsd(pricesOf(req), cfg.model, figures),
        latencyMs,
        status,
        ...(why ? { usageUnknown: why } : {}),
        ...(error ? { error } : {}),
      };
    };
    const account = (status: string, u: TokenUsage | null, latencyMs: number, error?: string, unknown?: UsageUnknownReason): LedgerEntry => {
      const e = entryFor(status, u, latencyMs, error, unknown);
      cost = cost === null || e.costUsd === null ? null : Number((cost + e.costUsd).toFixed(9));
      if (e.usageUnknown) {
        unknownCostCalls++;
        unknownCostReasons[e.usageUnknown] = (unknownCostReasons[e.usageUnknown] ?? 0) + 1;
      } else usage = addUsage(usage, e.usage);
      return e;
    };
    const record = (status: string, u: TokenUsage | null, latencyMs: number, error?: string, unknown?: UsageUnknownReason): Promise<void> =>
      ledger.record(account(status, u, latencyMs, error, unknown));
    const gate: CallGate = o.gate ?? ((_req, send) => send());
    // The pending row is written just before the request leaves; `begun` says whether this attempt's was.
    let begun = false;
    let leaseLost = false;
    let lookedUp = !combined;
    let cachedHit: CachedResponse | undefined;
    const begin = async (entry: LedgerEntry): Promise<boolean> => {
      if (lookedUp) return ledger.begin(entry, input.lease);
      lookedUp = true;
      const r = await combined!(cacheKey, entry, input.lease);
      if ('begun' in r) return r.begun;
      // A stale entry wrote no pending row: this is a miss, so the call begins as any other (same gate pass).
      if (!meetsReplyRules(r.hit)) return ledger.begin(entry, input.lease);
      cachedHit = r.hit;
      throw new Error('cache hit');
    };
    const send = async (): Promise<JudgeReply> => {
      if (!(await begin(entryFor('pending', pendingEstimate(req, cfg.params.max_tokens), 0)))) {
        leaseLost = true;
        throw new ProviderCallError('fatal', 'lease lost: another worker holds this job now');
      }
      begun = true;
      return withTimeout(tracedJudgeCall(cfg, () => adapter.call(req)), cfg.params.timeout_ms + 1000);
    };

    for (;;) {
      attempt++;
      calls++;
      const t0 = clock();
      let reply: JudgeReply;
      begun = false;
      try {
        reply = storableReply(await gate(req, send));
      } catch (e) {
        // An error the adapter did not classify came after the request may have left: its cost is unknown.
        const err = e instanceof ProviderCallError ? e : new ProviderCallError('fatal', `adapter error: ${(e as Error)?.message ?? String(e)}`, undefined, undefined, 'aborted');
        // Nothing was sent (refused at the gate or lease lost): no call to count or record.
        if (!begun) calls--;
        if (cachedHit) return finish('ok', null, cachedHit.output, cachedHit.raw, { cached: true, ...(cachedHit.confidence ? { confidence: cachedHit.confidence } : {}) });
        if (leaseLost) return finish('provider_error', err.message, null, lastRaw, { leaseLost: true });
        const kindStatus = { retryable: 'retryable_error', fatal: 'fatal_error', 'stop-run': 'stop_run' }[err.kind];
        // A provider's error reply (HTTP 4xx/5xx) is not billed: 0 tokens. A call that may have been taken
        // and got no reply (a timeout, a lost connection) has unknown usage, never 0.
        if (begun) await record(kindStatus, err.usageUnknown ? null : ZERO_USAGE, clock() - t0, err.message, err.usageUnknown);
        if (err.kind === 'retryable' && attempt < cfg.params.max_attempts) {
          await sleep(retryDelayMs(attempt, err, rng, backoff));
          continue;
        }
        if (err.kind === 'stop-run') stopped = err.message;
        const why = err.kind === 'retryable' ? `gave up after ${attempt} attempt${attempt > 1 ? 's' : ''}: ${err.message}` : err.message;
        return finish('provider_error', why, null, lastRaw, { stopRun: err.kind === 'stop-run' });
      }
      lastRaw = reply.text;
      if (reply.stop === 'truncated') {
        await record('truncated', reply.usage, clock() - t0);
        return finish('truncated', `output cut off at max_tokens=${cfg.params.max_tokens} (${reply.stopDetail ?? 'length'})`, null, reply.text);
      }
      if (reply.stop === 'refused') {
        await record('refused', reply.usage, clock() - t0);
        return finish('refused', `the judge refused: ${reply.stopDetail ?? 'no reason given'}`, null, reply.text);
      }
      const parsed = parseReply(reply, untrusted);
      const v = parsed.ok ? validateOutput(cfg.mode, input.rubric, parsed.value) : parsed;
      if (v.ok) {
        const entry = account('ok', reply.usage, clock() - t0);
        // Kept with the verdicts (and in the cache with them), so a cached grade has the same confidence.
        const confidence = 'items' in v.output ? keptConfidence(reply.confidence, v.output.items) : undefined;
        const value: CachedResponse = { output: v.output, raw: reply.text, stop: reply.stop, usage, calls, model: cfg.model, promptHash: prompt.promptHash, ...(confidence ? { confidence } : {}), replyRules: REPLY_RULES_VERSION };
        if (o.ledgerAndCache) await o.ledgerAndCache.recordAndCache(entry, cacheKey, value);
        else {
          await ledger.record(entry);
          await cache.set(cacheKey, value);
        }
        return finish('ok', null, v.output, reply.text, confidence ? { confidence } : {});
      }
      await record('invalid_output', reply.usage, clock() - t0, v.error);
      if (req.reask) return finish('parse_failure', `invalid output after one re-ask: ${v.error}`, null, reply.text);
      req.reask = { previous: reply, error: v.error };
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
