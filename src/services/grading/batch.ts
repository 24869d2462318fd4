import { and, asc, eq, ne } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { withExclusive } from '../../db/exclusive.ts';
import { dbResponseCache } from '../../db/judge-store.ts';
import { providerBatches } from '../../db/schema.ts';
import { badInput } from '../../domain/errors.ts';
import type { ProviderKeys } from '../../judges/adapters/index.ts';
import { type LoadedJudge, loadJudge } from '../../judges/config.ts';
import { isLoadedPanel, loadJudgeOrPanel } from '../../judges/panel-config.ts';
import { responseCacheKey } from '../../judges/engine.ts';
import { meetsReplyRules } from '../../judges/reply-rules.ts';
import { loadPrices } from '../../judges/prices.ts';
import { assertBatchJudge, createBatchClient } from '../../judges/batch/index.ts';
import { type BatchClient, batchPrices } from '../../judges/batch/types.ts';
import type { Judge, JudgeRequest } from '../../judges/types.ts';
import { resolveJudgeExamples } from './judge-examples.ts';
import { refuseBatchesOfEarlierConfig } from './batch-earlier-config.ts';
import { collect, goneReason } from './batch-collect.ts';
import { type BatchContext, type BatchCounts, itemFor, rubricReader, tally } from './batch-context.ts';
import { customIdFor, requestFingerprint } from './batch-ids.ts';
import { createBatchJudge } from './batch-judge.ts';
import { submit } from './batch-submit.ts';
import { ensureJudgeRow } from './judge-row.ts';
import { answersNeedingGrade, runSelection, type SkippedCounts } from './needs-grading.ts';
import { type RunUsage, runUsage } from './progress.ts';
import { findRun } from './run-ref.ts';
import type { RunAndJudge } from './run-queue.ts';
import { createGradingSession, type SessionOptions } from './session.ts';

/**
 * `assay run --batch`: a run graded through the provider's batch API (half price, up to 24 h).
 *
 * Durability: a provider_batches row is written as an `intent` before the create call and gets the
 * provider id right after; on restart an `intent` row is first looked for at the provider (batch-submit.ts),
 * so a crash between create and recording the id does not pay twice. Results are matched by custom_id
 * and graded through the same engine path as live calls (batch-collect.ts, batch-judge.ts), with the
 * ledger priced at the batch discount: each paid line is one ledger row (batch-ledger.ts), a line the
 * provider did not answer (errored, expired, canceled: not billed) none.
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
  hooks?: BatchContext['hooks'];
  sleep?: (ms: number) => Promise<void>;
}

export interface BatchGradingResult extends RunAndJudge, BatchCounts, RunUsage {
  /** Answers of the run no judge grades, by reason (needs-grading.ts): not sent. */
  skipped: SkippedCounts;
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
  const { skipped } = await runSelection(database.db, run.id);
  const out: BatchCounts = { created: 0, adopted: 0, graded: 0, failed: 0, resubmitted: 0 };
  const cache = dbResponseCache(database);

  // The engine sees a judge whose "call" is the batch result for that answer; a re-ask goes live
  // (batch-judge.ts). An answer without a result is refused at its gate: no call, no ledger row.
  const batch = createBatchJudge(judge, { ...(o.keys ? { keys: o.keys } : {}), ...(o.liveAdapter ? { liveAdapter: o.liveAdapter } : {}), cache });
  // Only what went through the batch API is billed at its discount: the re-ask is a regular call.
  const table = loadPrices();
  const discounted = batchPrices(table);
  const engine = { ...(o.engine ?? {}), prices: (req: JudgeRequest) => (req.reask ? table : discounted) };
  const session = await createGradingSession(database, { judge, adapter: batch.judge, gate: batch.gate, engine });
  const ctx: BatchContext = { database, judge, run, judgeId, client, session, batch, out, freshRows: new Set(), discounted, skewMs: o.skewMs ?? 5 * 60_000, ...(o.hooks ? { hooks: o.hooks } : {}) };

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
  // A verdict the response cache holds (the same answer imported again, graded live meanwhile) is not
  // bought again: the grade comes from the cache, as a live grade's would, with no request. The others
  // are kept as fingerprint → answers (prompts are built a chunk at a time and dropped: memory stays flat).
  const byFingerprint = new Map<string, number[]>();
  const rubrics = rubricReader(database);
  for (let i = 0; i < fresh.length; i += max) {
    const chunk = await Promise.all(fresh.slice(i, i + max).map(async (id) => ({ id, req: (await itemFor(ctx, '', id, rubrics)).req })));
    for (const { id, req } of chunk) {
      const hit = await cache.get(responseCacheKey(judge.configHash, req.prompt, req.answerHash));
      if (hit && meetsReplyRules(hit)) tally(out, await session.grade({ answer: { id } }));
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
    ctx.freshRows.add(r!.id);
    rowIds = {};
    requests = 0;
  };
  for (const [fp, ids] of byFingerprint) {
    if (requests === max) await writeRow();
    for (const id of ids) rowIds[customIdFor(judge.configHash, id, 1, fp)] = id;
    requests++;
  }
  await writeRow();

  for (let rows = await pending(); rows.length; rows = await pending()) {
    for (const row of rows) {
      let batchId = row.providerBatchId;
      if (row.state === 'intent' || !batchId) {
        batchId = await submit(ctx, row);
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
      await collect(ctx, row, batchId, lost);
    }
  }
  // The ledger's figures for the run × judge, as the queue's progress reports them (one query).
  return { run, judge: { id: judgeId, slug: cfg.id }, skipped, ...out, ...(await runUsage(database, judgeId, run.id)) };
}
