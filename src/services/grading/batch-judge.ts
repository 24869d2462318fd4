import { createAdapter, type ProviderKeys } from '../../judges/adapters/index.ts';
import type { LoadedJudge } from '../../judges/config.ts';
import { type CallGate, responseCacheKey } from '../../judges/engine.ts';
import { meetsReplyRules } from '../../judges/reply-rules.ts';
import type { ResponseCache } from '../../judges/store.ts';
import { type Judge, type JudgeReply, type JudgeRequest, ProviderCallError, ZERO_USAGE } from '../../judges/types.ts';
import { requestFingerprint } from './batch-ids.ts';

/**
 * The judge the engine grades a `--batch` answer with (batch.ts): its "call" is the batch result for that
 * answer; the one re-ask on invalid output goes through the regular API.
 *
 * A result the batch has no verdict for (the item errored, expired or was canceled after its resubmission:
 * not billed; or its request changed while it was in the batch) is refused at the gate, before the engine
 * writes a ledger row for a call: nothing is sent, so the grade is provider_error with no call, no row, $0.
 * Before, the engine recorded the judge's throw as a fatal_error row of a provider call never made. A verdict
 * the response cache holds for it still grades it (the engine's lookup happens inside `send`).
 */

/** A batch result of an answer, the fingerprint of the request it answers (null: unknown) and its line's ledger key. */
export type BatchReply = { reply: JudgeReply; fingerprint: string | null; callKey: string };

export interface BatchJudge {
  judge: Judge;
  gate: CallGate;
  /** answer id → its batch result, or why it has none; set just before the answer is graded. */
  replies: Map<number, BatchReply | string>;
  /** Ledger keys of batch lines already settled: a twin handed the same reply adds no cost to its grade. */
  settledLines: Set<string>;
}

export function createBatchJudge(judge: LoadedJudge, o: { keys?: ProviderKeys; liveAdapter?: Judge; cache: ResponseCache }): BatchJudge {
  const cfg = judge.config;
  const replies = new Map<number, BatchReply | string>();
  const settledLines = new Set<string>();
  let live: Promise<Judge> | null = null;
  // A live failure that would stop a live run (a bad key, no quota) stops the live re-asks only: the
  // engine, told 'stop-run', would fail every later grade of the session, batch results already paid for too.
  let liveStopped: string | null = null;

  /** Why this request cannot be answered without a call: nothing is sent for it (null: it can). */
  function unanswerable(req: JudgeRequest): ProviderCallError | null {
    if (req.reask) return liveStopped ? new ProviderCallError('fatal', `re-ask not sent through the regular API: ${liveStopped}`) : null;
    const r = replies.get(Number(req.answerId));
    if (r === undefined || typeof r === 'string') return new ProviderCallError('fatal', r ?? 'batch: no result for this answer');
    // Checked in collect before grading; this catches a change in between (the grade is then not final).
    if (r.fingerprint !== null && r.fingerprint !== requestFingerprint(req)) return new ProviderCallError('fatal', 'batch: the answer or its rubric changed while its request was in the batch');
    return null;
  }

  async function reaskLive(req: JudgeRequest): Promise<JudgeReply> {
    try {
      return await (await (live ??= o.liveAdapter ? Promise.resolve(o.liveAdapter) : createAdapter(judge, o.keys ?? {}))).call(req);
    } catch (e) {
      if (!(e instanceof ProviderCallError) || e.kind !== 'stop-run') throw e;
      liveStopped = e.message;
      throw new ProviderCallError('fatal', `re-ask through the regular API: ${e.message}`, e.status);
    }
  }

  const batchJudge: Judge = {
    provider: cfg.provider,
    model: cfg.model,
    baseline: false,
    async call(req: JudgeRequest): Promise<JudgeReply> {
      const refused = unanswerable(req);
      if (refused) throw refused;
      if (req.reask) return reaskLive(req);
      const r = replies.get(Number(req.answerId)) as BatchReply;
      // The line's one ledger row (sharedCallKey) holds its cost; a second answer of it is graded at no cost.
      if (settledLines.has(r.callKey)) return { ...r.reply, usage: { ...ZERO_USAGE } };
      settledLines.add(r.callKey);
      return r.reply;
    },
    sharedCallKey(req: JudgeRequest): string | undefined {
      const r = req.reask ? undefined : replies.get(Number(req.answerId));
      return r && typeof r !== 'string' ? r.callKey : undefined;
    },
  };

  const gate: CallGate = async (req, send) => {
    const refused = unanswerable(req);
    if (!refused) return send();
    // A verdict already paid for is used (send looks it up first and sends nothing); otherwise no call.
    if (!req.reask) {
      const hit = await o.cache.get(responseCacheKey(judge.configHash, req.prompt, req.answerHash));
      if (hit && meetsReplyRules(hit)) return send();
    }
    throw refused;
  };

  return { judge: batchJudge, gate, replies, settledLines };
}
