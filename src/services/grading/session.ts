import type { Database } from '../../db/client.ts';
import { gradeUpserter, type GradeRow } from '../../db/grade-store.ts';
import { dbLedgerAndCache, dbResponseCache, dbUsageLedger } from '../../db/judge-store.ts';
import { notFound } from '../../domain/errors.ts';
import { createAdapter, type ProviderKeys } from '../../judges/adapters/index.ts';
import { type LoadedJudge, loadJudge } from '../../judges/config.ts';
import { type CallGate, createJudgeEngine, type EngineOptions, type JudgeEngine, type JudgeOutcome } from '../../judges/engine.ts';
import type { JudgeImage } from '../../judges/prompt.ts';
import { buildReport, type GradeReport } from '../../judges/report.ts';
import type { Rubric } from '../../domain/rubric.ts';
import type { UnverifiablePolicy } from '../../scoring/description/score.ts';
import type { JobLease } from '../../judges/store.ts';
import type { Judge } from '../../judges/types.ts';
import { getRubricVersionById, toRubric } from '../rubrics.ts';
import { type GradeDetail, keptGrade, toGradeDetail } from './grade-detail.ts';
import { resolveJudgeExamples } from './judge-examples.ts';
import { ensureJudgeRow } from './judge-row.ts';
import { isFinalGrade, sqlText } from './needs-grading.ts';
import { queuedAnswerReader } from './queued-read.ts';
import { type GradeRequest, policyMeta, resolveAnswer, resolveRubric, type ResolvedRubric } from './resolve.ts';

/**
 * A grading session: one judge config, its engine (cache and ledger in the database) and its judges
 * row; grades one answer at a time and upserts the one grade per answer × judge. The provider call
 * happens outside any transaction: a ledger row for a paid call must survive a failed grade write.
 */

export interface SessionOptions {
  /** A loaded judge, or a judge id in judges/ or a path to a judge file. (A panel: createPanelSession.) */
  judge: LoadedJudge | string;
  keys?: ProviderKeys;
  /** Replaces the provider adapter (tests, benchmarks). */
  adapter?: Judge;
  engine?: Pick<EngineOptions, 'sleep' | 'random' | 'boundary' | 'clock' | 'backoff' | 'prices'>;
  /**
   * How long the session's writes after a call (ledger and cache, grade) wait to go out together with
   * other jobs' (group commit). A worker, whose jobs write behind their calls, sets it; an interactive
   * grade does not. Reads before the call never wait: they are on the way to the call.
   */
  writeLingerMs?: number;
  /** Linger only while this holds (the worker: while other calls are in flight); see db/group-commit.ts. */
  writeLingerWhile?: () => boolean;
  /** What each provider call waits for before it is sent (the worker's call slots and rate limit). */
  gate?: CallGate;
  /** The `workers` row of the process making the calls (stored with each ledger row). */
  workerId?: string;
  /**
   * The judges row the calls are accounted to in the usage ledger (default: this judge's own). A panel's
   * member calls are made for the panel, so a run's progress, tokens and cost under the panel count them.
   */
  ledgerJudgeRowId?: number;
}

/** What a queued job came to when it wrote no grade. */
export type QueuedOutcome = 'already graded' | 'not graded' | 'lease lost';

export interface GradingSession {
  engine: JudgeEngine;
  /** The judges row of this judge config (created when the session opens). */
  judgeRowId: number;
  grade(req: GradeRequest): Promise<GradeDetail>;
  /**
   * The queue's job: a stored answer graded with its own rubric's latest version; 'already graded' (no
   * call) when this judge already gave it a final grade, 'not graded' (no call) when it is not an answer
   * a judge grades (needs-grading.ts: it changed since it was enqueued), 'lease lost' (no further call,
   * no grade written) once `lease` is no longer held; 'already graded' too when its call failed and a final
   * grade was stored meanwhile by another grader (kept, not replaced by the failure).
   */
  gradeQueued(answerId: number, lease?: JobLease): Promise<GradeDetail | QueuedOutcome>;
  /** One call on a resolved answer and rubric (a panel's member sample); stored as this judge's grade when `store`. */
  gradeSample(answer: { id: number; text: string }, resolved: ResolvedRubric, o: SampleOptions): Promise<SampleResult>;
}

export interface SampleOptions {
  /** Write the grade as this judge's grade of the answer. */
  store: boolean;
  /**
   * With `store`: a call that failed (any status but ok) does not replace a final grade already stored
   * for the answer × rubric version (a panel's member sample: the member's own grade, perhaps from a
   * batch, is its answer; the failure is in the panel's report). Decided by the write itself (one
   * statement), so a final grade committed by another grader up to that moment stays; detail is then null.
   */
  keepFinal?: boolean;
  /** The rubric as the judge is shown it (a shuffled item order); scored against the resolved one. */
  promptRubric?: Rubric;
  /** The panel sample number (samples after the first are their own cached calls). */
  sample?: number;
  image?: JudgeImage;
  unverifiable?: UnverifiablePolicy;
  lease?: JobLease;
  /** Extra fields for the stored grade's meta. */
  meta?: Record<string, unknown>;
}

export interface SampleResult {
  outcome: JudgeOutcome;
  /** null when the lease was lost before the call. */
  report: GradeReport | null;
  /**
   * The stored grade (store: true), null when not stored or when the call failed and the stored grade was
   * kept (an ok one; with keepFinal, any final one), 'lease lost' when nothing could be written.
   */
  detail: GradeDetail | null | 'lease lost';
}

/** What a session reads before it grades, for a judge's (or a panel's) judges row. */
export interface SessionReads {
  /** A queued answer with its rubric's latest version, or why no call is made. */
  queued(answerId: number): Promise<{ answer: { id: number; text: string }; resolved: ResolvedRubric } | 'already graded' | 'not graded'>;
  /** What a grade request names, resolved (answer text is stored only once the rubric resolved). */
  request(req: GradeRequest): Promise<{ answer: { id: number; text: string }; resolved: ResolvedRubric }>;
}

export function sessionReads(database: Database, judgeRowId: number): SessionReads {
  // Rubric versions are immutable: one read per version for the session's life, not one per grade.
  const versions = new Map<number, Promise<ResolvedRubric>>();
  const rubricVersion = (versionId: number) => {
    let v = versions.get(versionId);
    if (!v) {
      v = getRubricVersionById(database, versionId).then((view) => ({ rubric: toRubric(view), versionId, version: view.version }));
      v.catch(() => versions.delete(versionId));
      versions.set(versionId, v);
    }
    return v;
  };
  // One statement for what grade() reads in five (the answer, its rubric's latest version, whether it
  // needs this judge's grade), shared by the jobs in flight (group commit).
  const readQueued = queuedAnswerReader(database, judgeRowId);
  return {
    async queued(answerId) {
      const row = await readQueued(answerId);
      if (!row) throw notFound(`answer ${answerId} not found`);
      if (row.graded) return 'already graded';
      if (row.skip !== null) return 'not graded';
      // A rubric without versions cannot be stored; the same message as getRubric, should one appear.
      if (row.versionId === null) throw notFound(`rubric '${row.rubric}' has no version undefined (latest is 0)`);
      return { answer: { id: answerId, text: row.text! }, resolved: await rubricVersion(Number(row.versionId)) };
    },
    async request(req) {
      // Reads first: a stored answer names its rubric; answer text is stored only once the rubric resolved.
      const stored = 'id' in req.answer ? await resolveAnswer(database, req) : null;
      const resolved = await resolveRubric(database, req, stored?.rubric ?? null);
      const answer = stored ?? (await resolveAnswer(database, req));
      return { answer, resolved };
    },
  };
}

/** The group-commit options of a session's writes after its calls. */
export const writeBehind = (o: Pick<SessionOptions, 'writeLingerMs' | 'writeLingerWhile'>) =>
  o.writeLingerMs ? { lingerMs: o.writeLingerMs, ...(o.writeLingerWhile ? { lingerWhile: o.writeLingerWhile } : {}) } : {};

export async function createGradingSession(database: Database, o: SessionOptions): Promise<GradingSession> {
  // An anchored judge's examples are read before anything is written (a bad one is refused, exit 2).
  const judge = await resolveJudgeExamples(database, typeof o.judge === 'string' ? loadJudge(o.judge) : o.judge);
  const adapter = o.adapter ?? (await createAdapter(judge, o.keys ?? {}));
  const judgeRowId = await ensureJudgeRow(database, judge);
  const behind = writeBehind(o);
  const engine = createJudgeEngine({
    judge,
    adapter,
    cache: dbResponseCache(database),
    ledger: dbUsageLedger(database, { judgeId: o.ledgerJudgeRowId ?? judgeRowId, workerId: o.workerId ?? null }, behind),
    ledgerAndCache: dbLedgerAndCache(database, { judgeId: o.ledgerJudgeRowId ?? judgeRowId, workerId: o.workerId ?? null }, behind),
    ...(o.gate ? { gate: o.gate } : {}),
    ...(o.engine ?? {}),
  });

  const reads = sessionReads(database, judgeRowId);

  async function gradeQueued(answerId: number, lease?: JobLease): Promise<GradeDetail | QueuedOutcome> {
    const r = await reads.queued(answerId);
    if (typeof r === 'string') return r;
    // A final grade stored by another grader while the call ran (a live grade, a --batch collection) is
    // kept over a failed call: the job read 'already graded' too late, not a reason to lose the verdicts.
    const s = await gradeSample(r.answer, r.resolved, { store: true, keepFinal: true, ...(lease ? { lease } : {}) });
    return s.detail ?? 'already graded';
  }

  async function grade(req: GradeRequest): Promise<GradeDetail> {
    const { answer, resolved } = await reads.request(req);
    return gradeResolved(req, answer, resolved) as Promise<GradeDetail>;
  }

  // keepFinal is decided inside the upsert, on the stored row it finds: a final grade another grader
  // commits after any read of ours is kept too (a check before the write left that window open).
  const upsertGrade = gradeUpserter(database, behind, { isFinal: sqlText(isFinalGrade) });

  async function gradeSample(answer: { id: number; text: string }, { rubric, versionId, version }: ResolvedRubric, so: SampleOptions): Promise<SampleResult> {
    const input = { rubric: so.promptRubric ?? rubric, answer: answer.text, answerId: String(answer.id) };
    const outcome = await engine.grade({ ...input, ...(so.image ? { image: so.image } : {}), ...(so.lease ? { lease: so.lease } : {}), ...(so.sample ? { sample: so.sample } : {}) });
    if (outcome.leaseLost) return { outcome, report: null, detail: 'lease lost' };
    // Scored against the rubric in its own order: verdicts are by item id, whatever order the judge saw.
    const report = buildReport(rubric, answer.text, outcome, so.unverifiable ? { unverifiable: so.unverifiable } : {});
    if (!so.store) return { outcome, report, detail: null };
    const row = {
      answerId: answer.id,
      judgeId: judgeRowId,
      rubricVersionId: versionId,
      promptHash: outcome.promptHash,
      status: report.status,
      reason: outcome.reason,
      completeness: report.completeness,
      correctness: report.correctness,
      f1: report.f1,
      items: report.items,
      claims: report.claims,
      meta: { ...report.meta, judge: report.judge, cached: outcome.cached, calls: outcome.calls, ...policyMeta(so.unverifiable), ...(so.meta ?? {}) },
      rawOutput: outcome.raw,
      inputTokens: outcome.usage.input,
      outputTokens: outcome.usage.output,
      cacheReadTokens: outcome.usage.cacheRead,
      cacheWriteTokens: outcome.usage.cacheWrite,
      costUsd: outcome.costUsd,
      latencyMs: Math.round(outcome.latencyMs),
    } satisfies GradeRow;
    // One statement is atomic on its own: no BEGIN/COMMIT round trips around it.
    const written = await upsertGrade(row, so.lease, { keepFinal: so.keepFinal === true });
    if (written === null) return { outcome, report, detail: 'lease lost' };
    if (written === 'kept') return { outcome, report, detail: null };
    // The stored row through the same mapper as every read of it: one shape, fresh or stored.
    return { outcome, report, detail: toGradeDetail({ ...row, ...written }, { id: rubric.id, version }) };
  }

  async function gradeResolved(
    req: Pick<GradeRequest, 'image' | 'unverifiable'>,
    answer: { id: number; text: string },
    resolved: ResolvedRubric,
    lease?: JobLease,
  ): Promise<GradeDetail | 'lease lost'> {
    const r = await gradeSample(answer, resolved, { store: true, ...(req.image ? { image: req.image } : {}), ...(req.unverifiable ? { unverifiable: req.unverifiable } : {}), ...(lease ? { lease } : {}) });
    // A failed call met an ok grade, which stays: the front gets that grade, its meta.lastAttempt saying this call failed.
    if (r.detail !== null) return r.detail;
    const attempt = { status: r.report!.status, reason: r.outcome.reason, calls: r.outcome.calls };
    return keptGrade(database, { answerId: answer.id, judgeId: judgeRowId, rubricVersionId: resolved.versionId }, { id: resolved.rubric.id, version: resolved.version }, attempt);
  }

  return { engine, judgeRowId, grade, gradeQueued, gradeSample };
}
