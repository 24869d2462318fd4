import type { Database } from '../../db/client.ts';
import { gradeUpserter, type GradeRow } from '../../db/grade-store.ts';
import { isFinalGrade, sqlText } from './needs-grading.ts';
import type { Rubric } from '../../domain/rubric.ts';
import { createAdapter } from '../../judges/adapters/index.ts';
import { canonicalJson, type LoadedJudge, sha256 } from '../../judges/config.ts';
import { type CallGate, type JudgeIdentity, LEXICAL_NOTE } from '../../judges/engine.ts';
import { type AnyLoadedJudge, isLoadedPanel, type LoadedPanel } from '../../judges/panel-config.ts';
import type { JobLease } from '../../judges/store.ts';
import type { Judge, UnknownCostReasons, UsageUnknownReason } from '../../judges/types.ts';
import { panelItemConfidence, panelItemOrders, type PanelSample, votePanel } from '../../scoring/panel/index.ts';
import { parseMeta, scoreMeta } from '../../scoring/description/meta.ts';
import { type GradeDetail, keptGrade, toGradeDetail } from './grade-detail.ts';
import { resolveJudgeExamples } from './judge-examples.ts';
import { ensureJudgeRow, panelMemberJudges } from './judge-row.ts';
import { panelDetail } from './panel-report.ts';
import { type GradeRequest, policyMeta, type ResolvedRubric } from './resolve.ts';
import { createGradingSession, type GradingSession, type SampleResult, type SessionOptions, sessionReads, writeBehind } from './session.ts';

/**
 * A panel judge graded like any other judge (design §2.5): one member session per member judge (its
 * own judges row, cache entries and ledger rows), every member × sample asked at once, each sample its
 * own cached call; sample 1 of each member is stored as that member's own grade; the vote is stored as
 * the panel's grade under the panel's judges row with status ok or no_quorum and the report in
 * meta.panel (GradeDetail.panel).
 */

/** What every front holds of a session: its judges row and the two ways to grade. */
export type AnySession = Pick<GradingSession, 'judgeRowId' | 'grade' | 'gradeQueued'>;

export interface OpenSessionOptions extends Omit<SessionOptions, 'judge' | 'adapter' | 'gate'> {
  judge: AnyLoadedJudge;
  /** A plain judge's adapter (tests, benchmarks); for a panel see adapterFor. */
  adapter?: Judge;
  /** Builds a member judge's adapter (default: the real SDK adapter from keys). */
  adapterFor?: (judge: LoadedJudge) => Promise<Judge>;
  /** What each provider call of this judge waits for (the worker's call slots and rate limit), per judge. */
  gateFor?: (judge: LoadedJudge) => CallGate | undefined;
}

/** A grading session for a judge or a panel. */
export async function openGradingSession(database: Database, o: OpenSessionOptions): Promise<AnySession> {
  const { adapter, adapterFor, gateFor, ...rest } = o;
  // Members' examples first: they are in the members' config hashes, and so in the panel's.
  const judge = await resolveJudgeExamples(database, o.judge);
  if (isLoadedPanel(judge)) return createPanelSession(database, judge, { ...o, judge });
  const gate = gateFor?.(judge);
  const built = adapter ?? (adapterFor ? await adapterFor(judge) : undefined);
  return createGradingSession(database, { ...rest, judge, ...(built ? { adapter: built } : {}), ...(gate ? { gate } : {}) });
}

// Defined beside the judges row (judge-row.ts needs it, and this file imports that one): one list of a panel's judges.
export { panelMemberJudges };

export function panelIdentity(panel: LoadedPanel): JudgeIdentity {
  const members = panelMemberJudges(panel);
  // A panel of lexical baselines is still a floor, not a judge: it says so like its members would.
  const baseline = members.every((j) => j.config.provider === 'lexical');
  const identity = { id: panel.config.id, provider: 'panel', model: members.map((j) => j.config.id).join('+'), mode: 'rubric' as const, configHash: panel.configHash, baseline };
  return baseline ? { ...identity, note: LEXICAL_NOTE } : identity;
}

const reorder = (rubric: Rubric, order: readonly string[]): Rubric => {
  const byId = new Map(rubric.items.map((it) => [it.id, it]));
  return { ...rubric, items: order.map((id) => byId.get(id)!) };
};

async function createPanelSession(database: Database, panel: LoadedPanel, o: OpenSessionOptions): Promise<AnySession> {
  const members = panelMemberJudges(panel);
  const { samples, vote, shuffle, seed } = panel.config;
  const judgeRowId = await ensureJudgeRow(database, panel);
  const sessions = new Map<string, GradingSession>();
  for (const judge of members) {
    const adapter = o.adapterFor ? await o.adapterFor(judge) : await createAdapter(judge, o.keys ?? {});
    const gate = o.gateFor?.(judge);
    const { adapterFor: _a, gateFor: _g, adapter: _ad, judge: _j, ...rest } = o;
    // Each call is the member's (its model, its config hash in the ledger row), made for the panel's grade.
    sessions.set(judge.config.id, await createGradingSession(database, { ...rest, judge, adapter, ledgerJudgeRowId: judgeRowId, ...(gate ? { gate } : {}) }));
  }
  const identity = panelIdentity(panel);
  const reads = sessionReads(database, judgeRowId);
  // A queued panel grade keeps a final grade stored meanwhile over its own failure, as a member's does
  // (session.ts): decided inside the upsert, on the stored row it finds.
  const upsertGrade = gradeUpserter(database, writeBehind(o), { isFinal: sqlText(isFinalGrade) });

  async function gradeResolved(
    req: Pick<GradeRequest, 'image' | 'unverifiable'>,
    answer: { id: number; text: string },
    resolved: ResolvedRubric,
    lease?: JobLease,
    keepFinal = false,
  ): Promise<GradeDetail | 'lease lost' | 'already graded'> {
    const { rubric, versionId, version } = resolved;
    const started = Date.now();
    const orders = panelItemOrders(rubric.items.map((it) => it.id), [...sessions.keys()], samples, { shuffle, seed });
    // Every member × sample at once: each is one provider call through the member's own gate.
    const results: SampleResult[] = await Promise.all(
      orders.map((s) =>
        sessions.get(s.judge)!.gradeSample(answer, resolved, {
          // Sample 1 is the member's own grade of the answer (the same call, and cache entry, as grading with
          // it alone). A shuffled sample saw another prompt: stored as the member's grade it would replace the
          // member's own grade of the answer with a different question's answer, so it stays in the panel report.
          store: s.sample === 1 && !shuffle,
          // A member's stored final grade (alone, or from a batch, which caches nothing) outlives a failed call.
          keepFinal: true,
          sample: s.sample,
          ...(shuffle ? { promptRubric: reorder(rubric, s.order), meta: { panelSample: { panel: panel.config.id, sample: s.sample, itemOrder: s.order } } } : {}),
          ...(req.image ? { image: req.image } : {}),
          ...(req.unverifiable ? { unverifiable: req.unverifiable } : {}),
          ...(lease ? { lease } : {}),
        }),
      ),
    );
    if (results.some((r) => r.detail === 'lease lost')) return 'lease lost';
    const votes: PanelSample[] = results.map((r, i) => ({
      judge: orders[i]!.judge,
      sample: orders[i]!.sample,
      status: r.outcome.status,
      // Members are rubric judges (panel-config refuses others): an ok output has items.
      items: r.outcome.output && 'items' in r.outcome.output ? r.outcome.output.items : [],
      correctness: r.report!.correctness,
    }));
    const result = votePanel(rubric, votes, { vote, quorum: panel.quorum });
    const confidence = panelItemConfidence(result, votes.map((v, i) => ({ ...v, confidence: results[i]!.outcome.confidence })));
    // A failed sample's reason goes with its status: for a shuffled sample or sample 2, 3, … no grade keeps it.
    const detail = panelDetail(result, shuffle ? orders.map((s) => ({ judge: s.judge, sample: s.sample, order: s.order })) : null, results.map((r) => r.outcome.reason));
    const sum = (f: (r: SampleResult) => number) => results.reduce((n, r) => n + f(r), 0);
    const costs = results.map((r) => r.outcome.costUsd);
    // Members' calls of unknown usage (a timeout, a reply without usage) make the panel's cost null as they
    // make a member's: the grade counts them, by reason, as a single grade does (judges/report.ts).
    const unknownCostCalls = sum((r) => r.outcome.unknownCostCalls);
    const unknownCostReasons: UnknownCostReasons = {};
    for (const r of results) for (const [k, n] of Object.entries(r.outcome.unknownCostReasons) as Array<[UsageUnknownReason, number]>) unknownCostReasons[k] = (unknownCostReasons[k] ?? 0) + n;
    // The panel's prompt is its samples' prompts: their hashes, in sample order.
    const promptHash = sha256(canonicalJson(results.map((r) => r.outcome.promptHash)));
    // The meta scores are read from the answer against the rubric's truth, whoever judges it: an ok panel grade
    // carries them as an ok member grade does (the orientation and ablation reports read them of the judge's grades).
    const metaScores = result.status === 'ok' && rubric.truth ? scoreMeta(parseMeta(answer.text), rubric.truth) : {};
    const row = {
      answerId: answer.id,
      judgeId: judgeRowId,
      rubricVersionId: versionId,
      promptHash,
      status: result.status,
      reason: result.reason,
      completeness: result.completeness,
      correctness: result.correctness,
      f1: result.f1,
      items: result.status === 'ok' ? result.items.map((it) => ({ id: it.id, weight: it.weight, verdict: it.verdict!, evidence: '', points: it.weight * it.points!, ...confidence.get(it.id)! })) : [],
      claims: [],
      meta: { reason: result.reason, promptHash, ...metaScores, judge: identity, cached: results.every((r) => r.outcome.cached), calls: sum((r) => r.outcome.calls), ...(unknownCostCalls > 0 ? { unknownCostCalls, unknownCostReasons } : {}), panel: detail, ...policyMeta(req.unverifiable) },
      rawOutput: null,
      inputTokens: sum((r) => r.outcome.usage.input),
      outputTokens: sum((r) => r.outcome.usage.output),
      cacheReadTokens: sum((r) => r.outcome.usage.cacheRead),
      cacheWriteTokens: sum((r) => r.outcome.usage.cacheWrite),
      costUsd: costs.some((c) => c === null) ? null : Number(costs.reduce((a, c) => a! + c!, 0)!.toFixed(9)),
      // Members run at once: the panel took as long as its slowest sample, not their sum.
      latencyMs: Math.round(Date.now() - started),
    } satisfies GradeRow;
    const written = await upsertGrade(row, lease, { keepFinal });
    if (written === null) return 'lease lost';
    if (written === 'kept' && keepFinal) return 'already graded';
    // A live grade whose vote failed met an ok panel grade, which stays (meta.lastAttempt says this vote failed).
    if (written === 'kept') return keptGrade(database, { answerId: answer.id, judgeId: judgeRowId, rubricVersionId: versionId }, { id: rubric.id, version }, { status: row.status, reason: row.reason, calls: row.meta.calls });
    return toGradeDetail({ ...row, ...written }, { id: rubric.id, version });
  }

  return {
    judgeRowId,
    async grade(req) {
      const { answer, resolved } = await reads.request(req);
      return gradeResolved(req, answer, resolved) as Promise<GradeDetail>;
    },
    async gradeQueued(answerId, lease) {
      const r = await reads.queued(answerId);
      if (typeof r === 'string') return r;
      return gradeResolved({}, r.answer, r.resolved, lease, true);
    },
  };
}
