import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { withExclusive } from '../../db/exclusive.ts';
import { providerBatches } from '../../db/schema.ts';
import { badInput } from '../../domain/errors.ts';
import type { Rubric } from '../../domain/rubric.ts';
import { createAdapter, type ProviderKeys } from '../../judges/adapters/index.ts';
import { type LoadedJudge, loadJudge, sha256 } from '../../judges/config.ts';
import { isLoadedPanel, loadJudgeOrPanel } from '../../judges/panel-config.ts';
import { outputJsonSchema } from '../../judges/contract.ts';
import { responseCacheKey } from '../../judges/engine.ts';
import { meetsReplyRules } from '../../judges/reply-rules.ts';
import { dbResponseCache } from '../../db/judge-store.ts';
import { loadPrices } from '../../judges/prices.ts';
import { assertBatchJudge, createBatchClient } from '../../judges/batch/index.ts';
import { type BatchClient, type BatchItem, type BatchItemResult, batchPrices } from '../../judges/batch/types.ts';
import { type Judge, type JudgeReply, type JudgeRequest, ProviderCallError, ZERO_USAGE } from '../../judges/types.ts';
import { getAnswer } from '../answers.ts';
import { getRubric, toRubric } from '../rubrics.ts';
import { resolveJudgeExamples } from './judge-examples.ts';
import { refuseBatchesOfEarlierConfig } from './batch-earlier-config.ts';
import { batchLineKey, existingAnswers, recordDiscardedLines, settledKeys } from './batch-ledger.ts';
import { customIdFor, fingerprintOf, requestFingerprint, sentEntries } from './batch-ids.ts';
import { ensureJudgeRow } from './judge-row.ts';
import { answersNeedingGrade, runSelection, type SkippedCounts } from './needs-grading.ts';
import { findRun } from './run-ref.ts';
import type { RunAndJudge } from './run-queue.ts';
import { createGradingSession, type SessionOptions } from './session.ts';

/**
 * `assay run --batch`: a run graded through the provider's batch API (half price, up to 24 h).
 *
 * Durability: a provider_batches row is written as an `intent` before the create call and gets the
 * provider id right after. On restart an `intent` row is first looked for among the provider's recent
 * batches (OpenAI: metadata.assay_intent; Anthropic, whose list has no metadata: a batch created
 * after the intent, with the same request count, claimed by no other row), so a crash between
 * create and recording the id does not pay twice. Results are matched by custom_id, never by order;
 * errored / expired / canceled / missing items are resubmitted once (attempt 2), then graded as
 * provider_error. A custom_id carries the fingerprint of its request: a result whose answer or rubric
 * changed while it was in the batch is not stored; the item is asked again as it is now. Grades go through the same engine path as live calls (parse, validate, score,
 * upsert per answer × judge), with the ledger priced at the batch discount.
 */

export interface BatchGradingOptions {
  run: string | number;
  judge: string | LoadedJudge;
  keys?: ProviderKeys;
  /** Between status checks; default 30 s. */
  pollIntervalMs?: number;
  /** Replaces the SDK batch client (tests). */
  client?: BatchClient;
  /** Serves the one re-ask on invalid output through the regular API; default: the SDK adapter. */
  liveAdapter?: Judge;
  engine?: SessionOptions['engine'];
  /** Requests per provider batch (Anthropic allows 100 000, OpenAI 50 000). */
  maxPerBatch?: number;
  /** How much earlier than its intent row a provider batch may look (clock skew), for Anthropic matching. */
  skewMs?: number;
  /** Crash points for tests: a hook that throws stops the run exactly there. */
  hooks?: { afterIntent?(rowId: number): void | Promise<void>; afterCreate?(rowId: number, providerBatchId: string): void | Promise<void> };
  sleep?: (ms: number) => Promise<void>;
}

export interface BatchGradingResult extends RunAndJudge {
  /** Answers of the run no judge grades, by reason (needs-grading.ts): not sent. */
  skipped: SkippedCounts;
  /** Provider batches created by this call, and found again by reconciliation instead of created. */
  created: number;
  adopted: number;
  graded: number;
  failed: number;
  resubmitted: number;
}

type Row = typeof providerBatches.$inferSelect;

export { customIdFor, requestFingerprint };

/** Checked before anything is opened or written: only providers with a batch API (judges/batch/index.ts). */
export function checkBatchJudge(ref: string): void {
  const judge = loadJudgeOrPanel(ref);
  // A panel's members would each need their own batch and a vote once all are back: not built (yet).
  if (isLoadedPanel(judge)) throw badInput(`--batch grades with one judge; ${judge.config.id} is a panel judge (run without --batch: its members are asked at once through the queue)`);
  assertBatchJudge(judge);
}

/**
 * A batch the provider answers 404 for (results past their retention, a key of another account) will
 * never come back: its items are missing, so they are asked again once, rather than every run stopping
 * on it. Any other failure is thrown (the next run polls again).
 */
function goneReason(e: unknown, batchId: string): string | null {
  return e instanceof ProviderCallError && e.status === 404 ? `batch ${batchId} is no longer at the provider (${e.message})` : null;
}

export async function runBatchGrading(database: Database, o: BatchGradingOptions): Promise<BatchGradingResult> {
  const judge = await resolveJudgeExamples(database, typeof o.judge === 'string' ? loadJudge(o.judge) : o.judge);
  const cfg = judge.config;
  assertBatchJudge(judge);
  const found = await findRun(database, o.run);
  const run = { id: found.id, name: found.name };
  await refuseBatchesOfEarlierConfig(database, run.id, run.name, judge);
  const judgeId = await ensureJudgeRow(database, judge);
  // Two `--batch` processes on one run × judge would both see the same ungraded answers and pay twice.
  const busy = `run '${run.name}' is already being graded with judge ${cfg.id} through the batch API by another process; wait for it, or stop it and run again`;
  return withExclusive(database, `assay-batch:${run.id}:${judgeId}`, busy, () => gradeThroughBatches(database, o, judge, run, judgeId));
}

async function gradeThroughBatches(database: Database, o: BatchGradingOptions, judge: LoadedJudge, run: { id: number; name: string }, judgeId: number): Promise<BatchGradingResult> {
  const cfg = judge.config;
  const client = o.client ?? (await createBatchClient(judge, o.keys ?? {}));
  const pollMs = o.pollIntervalMs ?? 30_000;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const skewMs = o.skewMs ?? 5 * 60_000;
  const { skipped } = await runSelection(database.db, run.id);
  const out: BatchGradingResult = { run, judge: { id: judgeId, slug: cfg.id }, skipped, created: 0, adopted: 0, graded: 0, failed: 0, resubmitted: 0 };

  // The engine sees a judge whose "call" is the batch result for that answer; a re-ask goes live.
  // answer id → its batch result and the fingerprint of the request that result answers (null: unknown).
  // `callKey`: the ledger row of the paid batch line the reply came from (batch-ledger.ts).
  const replies = new Map<number, { reply: JudgeReply; fingerprint: string | null; callKey: string } | string>();
  // Ledger keys of batch lines already settled: a twin handed the same reply adds no cost to its grade.
  const settledLines = new Set<string>();
  let live: Promise<Judge> | null = null;
  // A live failure that would stop a live run (a bad key, no quota) stops the live re-asks only: the
  // engine, told 'stop-run', would fail every later grade of the session, batch results already paid for too.
  let liveStopped: string | null = null;
  async function reaskLive(req: JudgeRequest): Promise<JudgeReply> {
    if (liveStopped) throw new ProviderCallError('fatal', `re-ask not sent through the regular API: ${liveStopped}`);
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
      if (req.reask) return reaskLive(req);
      const r = replies.get(Number(req.answerId));
      if (r === undefined || typeof r === 'string') throw new ProviderCallError('fatal', r ?? 'batch: no result for this answer');
      // Checked in collect before grading; this catches a change in between (the grade is then not final).
      if (r.fingerprint !== null && r.fingerprint !== requestFingerprint(req)) throw new ProviderCallError('fatal', 'batch: the answer or its rubric changed while its request was in the batch');
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
  // Only what went through the batch API is billed at its discount: the re-ask is a regular call (above).
  const table = loadPrices();
  const discounted = batchPrices(table);
  const engine = { ...(o.engine ?? {}), prices: (req: JudgeRequest) => (req.reask ? table : discounted) };
  const session = await createGradingSession(database, { judge, adapter: batchJudge, engine });

  // A rubric's latest version, read once per slug by each reader (one submission, one collection): never
  // kept longer, since a batch can take hours.
  const rubricReader = () => {
    const rubrics = new Map<string, Promise<Rubric>>();
    return (slug: string): Promise<Rubric> => {
      let r = rubrics.get(slug);
      if (!r) rubrics.set(slug, (r = getRubric(database, slug).then(toRubric)));
      return r;
    };
  };
  async function itemFor(customId: string, answerId: number, rubrics: (slug: string) => Promise<Rubric>): Promise<BatchItem> {
    const a = await getAnswer(database, answerId);
    if (!a.rubric) throw badInput(`answer ${answerId}: names no rubric`);
    const rubric = await rubrics(a.rubric);
    const text = a.text ?? '';
    const req: JudgeRequest = {
      mode: cfg.mode,
      rubric,
      prompt: session.engine.assemble({ rubric, answer: text }),
      answer: text,
      answerHash: sha256(text),
      answerId: String(answerId),
      schema: outputJsonSchema(cfg.mode, rubric),
      timeoutMs: cfg.params.timeout_ms,
    };
    return { customId, req };
  }

  const pending = () =>
    database.db
      .select()
      .from(providerBatches)
      .where(and(eq(providerBatches.runId, run.id), eq(providerBatches.judgeId, judgeId), ne(providerBatches.state, 'reconciled')))
      .orderBy(asc(providerBatches.id));
  const setState = (id: number, state: Row['state'], extra: Partial<Row> = {}) =>
    database.db.update(providerBatches).set({ state, ...extra, updatedAt: new Date() }).where(eq(providerBatches.id, id));

  // Answers that need this judge's grade (needs-grading.ts), not already in an unfinished batch.
  const covered = new Set((await pending()).flatMap((r) => Object.values(r.customIds)));
  const todo = await answersNeedingGrade(database.db, run.id, judgeId);
  const fresh = todo.filter((id) => !covered.has(id));
  const max = o.maxPerBatch ?? 10_000;
  const cache = dbResponseCache(database);
  const tally = (g: { status: string }) => (g.status === 'provider_error' ? out.failed++ : out.graded++);
  // Rows written by this call cannot have a provider batch yet: only older intents are looked up.
  const freshRows = new Set<number>();
  // A verdict the response cache holds (the same answer imported again, graded live meanwhile) is not
  // bought again: the grade comes from the cache, as a live grade's would, with no request. The others
  // are kept as fingerprint → answers (prompts are built a chunk at a time and dropped: memory stays flat).
  const byFingerprint = new Map<string, number[]>();
  const rubrics = rubricReader();
  for (let i = 0; i < fresh.length; i += max) {
    const chunk = await Promise.all(fresh.slice(i, i + max).map(async (id) => ({ id, req: (await itemFor('', id, rubrics)).req })));
    for (const { id, req } of chunk) {
      const hit = await cache.get(responseCacheKey(judge.configHash, req.prompt, req.answerHash));
      if (hit && meetsReplyRules(hit)) tally(await session.grade({ answer: { id } }));
      else {
        const fp = requestFingerprint(req);
        const same = byFingerprint.get(fp);
        if (same) same.push(id);
        else byFingerprint.set(fp, [id]);
      }
    }
  }
  // Up to `max` requests per batch, and the answers of one request in the same batch as it (sent once).
  let rowIds: Record<string, number> = {};
  let requests = 0;
  const writeRow = async () => {
    if (!requests) return;
    const [r] = await database.db.insert(providerBatches).values({ runId: run.id, judgeId, provider: cfg.provider, customIds: rowIds, attempt: 1 }).returning({ id: providerBatches.id });
    freshRows.add(r!.id);
    rowIds = {};
    requests = 0;
  };
  for (const [fp, ids] of byFingerprint) {
    if (requests === max) await writeRow();
    for (const id of ids) rowIds[customIdFor(judge.configHash, id, 1, fp)] = id;
    requests++;
  }
  await writeRow();

  async function reconcile(row: Row): Promise<string | null> {
    const listed = await client.list(new Date(row.createdAt.getTime() - skewMs));
    const claimed = new Set(
      (await database.db.select({ id: providerBatches.providerBatchId }).from(providerBatches).where(sql`${providerBatches.providerBatchId} is not null`)).map((r) => r.id),
    );
    const n = sentEntries(row.customIds).length;
    const mine = listed
      // Where batches carry our intent, one without it (made by something else on the key) is never ours.
      .filter((b) => !claimed.has(b.id) && (client.keepsIntent || b.intent !== null ? b.intent === String(row.id) : b.total === n))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    return mine[0]?.id ?? null;
  }

  /** The provider batch of an intent row: adopted, or created now; null when no answer of it is left to send. */
  async function submit(row: Row): Promise<string | null> {
    const adopted = freshRows.has(row.id) ? null : await reconcile(row);
    if (adopted) {
      out.adopted++;
      return adopted;
    }
    await o.hooks?.afterIntent?.(row.id);
    // Answers deleted since the intent was written (a restart hours later) are not sent: building their
    // requests would stop this run, and every later one, on 'answer not found'.
    const present = await existingAnswers(database.db, Object.values(row.customIds));
    if (Object.values(row.customIds).some((id) => !present.has(id))) {
      row.customIds = Object.fromEntries(Object.entries(row.customIds).filter(([, id]) => present.has(id)));
      await database.db.update(providerBatches).set({ customIds: row.customIds, updatedAt: new Date() }).where(eq(providerBatches.id, row.id));
      if (Object.keys(row.customIds).length === 0) return null;
    }
    const rubrics = rubricReader();
    const entries = Object.entries(row.customIds);
    let items = await Promise.all(entries.map(([cid, id]) => itemFor(cid, id, rubrics)));
    // An intent written before its answer or rubric changed (a restart hours later): its custom ids are
    // made to say what is sent, before anything is sent.
    const relabelled = items.map((it, k) => {
      const fp = requestFingerprint(it.req);
      return fingerprintOf(it.customId) === fp ? it : { ...it, customId: customIdFor(judge.configHash, entries[k]![1], row.attempt, fp) };
    });
    if (relabelled.some((it, k) => it !== items[k])) {
      row.customIds = Object.fromEntries(relabelled.map((it, k) => [it.customId, entries[k]![1]]));
      await database.db.update(providerBatches).set({ customIds: row.customIds, updatedAt: new Date() }).where(eq(providerBatches.id, row.id));
      items = relabelled;
    }
    const sent = new Set(sentEntries(row.customIds).map(([cid]) => cid));
    const id = await client.create(items.filter((it) => sent.has(it.customId)), String(row.id));
    out.created++;
    await o.hooks?.afterCreate?.(row.id, id);
    return id;
  }

  /** `lost`: why the batch's results are gone, or what the provider said of the batch (the reason of a missing item). */
  async function collect(row: Row, batchId: string, lost: string | null): Promise<void> {
    const results = new Map<string, BatchItemResult>();
    let fetched: BatchItemResult[] = [];
    if (lost === null) {
      try {
        const r = await client.results(batchId);
        fetched = r.items;
        lost = r.problem;
      } catch (e) {
        lost = goneReason(e, batchId);
        if (lost === null) throw e;
      }
    }
    // Only our custom_ids count: an adopted Anthropic batch that is not ours contributes nothing.
    // An item named twice keeps its first success: a later error line for it does not buy it again.
    for (const r of fetched) if (Object.hasOwn(row.customIds, r.customId) && !results.get(r.customId)?.ok) results.set(r.customId, r);
    const lineKeys = new Map([...results.values()].flatMap((r) => (r.ok ? [[r.customId, batchLineKey(batchId, r.customId)] as const] : [])));
    for (const k of await settledKeys(database, [...lineKeys.values()])) settledLines.add(k);
    // An answer whose request was not sent (another answer's, of the same fingerprint, was) takes its result.
    const byFingerprint = new Map<string, BatchItemResult>();
    for (const [cid, r] of results) {
      const fp = fingerprintOf(cid);
      if (fp !== null && !byFingerprint.get(fp)?.ok) byFingerprint.set(fp, r);
    }
    // attempt → custom id → answer: failed items once more (attempt 2); a result of a request that no
    // longer matches the answer or its rubric is a verdict on something else, so that item is asked again
    // as it is now, keeping its attempt.
    const again: Record<number, Record<string, number>> = {};
    // Only an answer still without a final grade is asked again (the queue or a live grade may have
    // given it one while the batch ran; a crash may have come after its grade was stored).
    const open = new Set(await answersNeedingGrade(database.db, run.id, judgeId));
    const rubricsNow = rubricReader();
    const fingerprintNow = async (answerId: number) => requestFingerprint((await itemFor('', answerId, rubricsNow)).req);
    const askAgain = async (answerId: number, attempt: number) => ((again[attempt] ??= {})[customIdFor(judge.configHash, answerId, attempt, await fingerprintNow(answerId))] = answerId);
    // An answer deleted while its batch ran gets no grade (its line is recorded as discarded below): it
    // must not stop the collection of the others, at every later run too.
    const present = await existingAnswers(database.db, Object.values(row.customIds));
    for (const [cid, answerId] of Object.entries(row.customIds)) {
      if (!present.has(answerId)) continue;
      const fp = fingerprintOf(cid);
      const r = results.get(cid) ?? (fp === null ? undefined : byFingerprint.get(fp));
      if (!r?.ok && row.attempt === 1 && open.has(answerId)) {
        await askAgain(answerId, 2);
        continue;
      }
      const sent = fp;
      if (r?.ok && open.has(answerId) && sent !== null && sent !== (await fingerprintNow(answerId))) {
        await askAgain(answerId, row.attempt);
        continue;
      }
      replies.set(answerId, r?.ok ? { reply: r.reply, fingerprint: sent, callKey: lineKeys.get(r.customId)! } : `batch item ${r ? r.kind : 'missing'} after resubmission${r ? `: ${r.error}` : lost ? `: ${lost}` : ''}`);
      // As a queued job does: an answer this judge already gave a final grade (this batch's, stored before a
      // crash; the queue's) keeps it, cost and tokens included; one that no longer qualifies gets none.
      const g = await session.gradeQueued(answerId);
      replies.delete(answerId);
      if (g === 'already graded') out.graded++;
      else if (typeof g !== 'string') tally(g);
    }
    // Every paid line, used or not, is one ledger row: those no grade settled (a result of a request that
    // changed, for an answer graded meanwhile or deleted) are recorded as discarded, with the reconciliation.
    const paid = [...results.values()].flatMap((r) => (r.ok ? [{ callKey: lineKeys.get(r.customId)!, answerId: row.customIds[r.customId]!, usage: r.reply.usage }] : []));
    await database.db.transaction(async (tx) => {
      await recordDiscardedLines(tx, { provider: cfg.provider, model: cfg.model, judgeId, prices: discounted }, paid);
      for (const [attempt, customIds] of Object.entries(again)) {
        const [r] = await tx.insert(providerBatches).values({ runId: run.id, judgeId, provider: cfg.provider, customIds, attempt: Number(attempt) }).returning({ id: providerBatches.id });
        freshRows.add(r!.id);
      }
      await tx.update(providerBatches).set({ state: 'reconciled', updatedAt: new Date() }).where(eq(providerBatches.id, row.id));
    });
    out.resubmitted += Object.values(again).reduce((n, ids) => n + Object.keys(ids).length, 0);
  }

  for (let rows = await pending(); rows.length; rows = await pending()) {
    for (const row of rows) {
      let batchId = row.providerBatchId;
      if (row.state === 'intent' || !batchId) {
        batchId = await submit(row);
        if (batchId === null) {
          await setState(row.id, 'reconciled');
          continue;
        }
        await setState(row.id, 'submitted', { providerBatchId: batchId });
      }
      let lost: string | null = null;
      if (row.state !== 'ended') {
        try {
          while (!(await client.ended(batchId))) await sleep(pollMs);
        } catch (e) {
          lost = goneReason(e, batchId);
          if (lost === null) throw e;
        }
        await setState(row.id, 'ended');
      }
      await collect(row, batchId, lost);
    }
  }
  return out;
}
