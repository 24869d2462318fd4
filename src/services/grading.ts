import { readFileSync } from 'node:fs';
import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { gradeUpserter, type GradeRow, queuedAnswerReader } from '../db/grade-store.ts';
import { dbLedgerAndCache, dbResponseCache, dbUsageLedger } from '../db/judge-store.ts';
import { answers, grades, judges, labels, runs } from '../db/schema.ts';
import type { LabelRow } from '../domain/labels.ts';
import type { Rubric } from '../domain/rubric.ts';
import { badInput, notFound } from '../domain/errors.ts';
import { createAdapter, type ProviderKeys } from '../judges/adapters/index.ts';
import { type LoadedJudge, loadJudge, sha256 } from '../judges/config.ts';
import { type CallGate, createJudgeEngine, defaultTemplatePath, type EngineOptions, type JudgeEngine } from '../judges/engine.ts';
import type { JudgeImage } from '../judges/prompt.ts';
import { buildReport, type GradeReport } from '../judges/report.ts';
import type { JobLease } from '../judges/store.ts';
import type { Judge } from '../judges/types.ts';
import type { UnverifiablePolicy } from '../scoring/description/score.ts';
import { getAnswer } from './answers.ts';
import { checkGradeRequest } from './grade-checks.ts';
import { getRubric, getRubricVersionById, storeRubric, toRubric } from './rubrics.ts';

/**
 * Grading use case: resolve rubric, answer and judge rows, run the judge engine (cache and ledger in
 * the database), score, and upsert the one grade per answer × judge in a transaction. The provider call
 * happens outside the transaction: a ledger row for a paid call must survive a failed grade write.
 */

export interface GradeRequest {
  /** A stored rubric (latest version unless given), or a rubric document (imported/versioned first). */
  rubric?: { slug: string; version?: number } | Rubric;
  /** A stored answer, or answer text (stored under run `run`, default "adhoc"). */
  answer: { id: number } | { text: string; run?: string; externalId?: string };
  image?: JudgeImage;
  unverifiable?: UnverifiablePolicy;
}

export interface StoredGrade extends GradeReport {
  gradeId: number;
  answerId: number;
  rubric: { id: string; version: number };
}

export interface SessionOptions {
  /** A loaded judge, or a judge id in judges/ or a path to a judge file. */
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
  /** What each provider call waits for before it is sent (the worker's call slots and rate limit). */
  gate?: CallGate;
  /** The `workers` row of the process making the calls (stored with each ledger row). */
  workerId?: string;
}

export interface GradingSession {
  engine: JudgeEngine;
  /** The judges row of this judge config (created when the session opens). */
  judgeRowId: number;
  grade(req: GradeRequest): Promise<StoredGrade>;
  /**
   * The queue's job: a stored answer graded with its own rubric's latest version, or 'already graded'
   * (no call) when this judge already gave it a final grade (any status but provider_error), or
   * 'lease lost' (no further call, no grade written) once `lease` is no longer held.
   */
  gradeQueued(answerId: number, lease?: JobLease): Promise<StoredGrade | 'already graded' | 'lease lost'>;
}

/** The judge used when none is named: the first provider with a key, else the lexical baseline. */
export function defaultJudgeRef(keys: ProviderKeys): string {
  if (keys.anthropicApiKey) return 'claude';
  if (keys.openaiApiKey) return 'gpt';
  return 'lexical';
}

/** The judges row for a judge config (by config hash), created on first use. */
export async function ensureJudgeRow(database: Database, judge: LoadedJudge): Promise<number> {
  const c = judge.config;
  let promptText: string | null = null;
  try {
    promptText = readFileSync(defaultTemplatePath(judge), 'utf8');
  } catch {
    promptText = null;
  }
  await database.db
    .insert(judges)
    .values({ slug: c.id, provider: c.provider, model: c.model, config: { ...c, promptText }, configHash: judge.configHash })
    .onConflictDoNothing();
  const [row] = await database.db.select({ id: judges.id }).from(judges).where(eq(judges.configHash, judge.configHash));
  return row!.id;
}

async function resolveRubric(database: Database, req: GradeRequest, answerRubric: string | null): Promise<{ rubric: Rubric; versionId: number; version: number }> {
  const r = req.rubric ?? (answerRubric ? { slug: answerRubric } : undefined);
  if (!r) throw badInput('rubric: none given and the answer names no rubric');
  if ('slug' in r) {
    const view = await getRubric(database, r.slug, r.version);
    return { rubric: toRubric(view), versionId: view.rubricVersionId, version: view.version };
  }
  const stored = await database.db.transaction((tx) => storeRubric(tx, r));
  return { rubric: r, versionId: stored.versionId, version: stored.version };
}

async function resolveAnswer(database: Database, req: GradeRequest): Promise<{ id: number; text: string; rubric: string | null }> {
  if ('id' in req.answer) {
    const a = await getAnswer(database, req.answer.id);
    if (a.text === null || a.text.trim() === '') throw badInput(`answer ${a.id}: has no text to grade (status ${a.status})`);
    return { id: a.id, text: a.text, rubric: a.rubric };
  }
  const { text } = req.answer;
  if (text.trim() === '') throw badInput('answer: empty text');
  const runName = req.answer.run ?? 'adhoc';
  const externalId = req.answer.externalId ?? `sha256-${sha256(text).slice(0, 16)}`;
  return database.db.transaction(async (tx) => {
    await tx.insert(runs).values({ name: runName, model: 'unknown' }).onConflictDoNothing();
    const [run] = await tx.select({ id: runs.id }).from(runs).where(eq(runs.name, runName));
    await tx.insert(answers).values({ runId: run!.id, externalId, task: 'describe', text }).onConflictDoNothing();
    const [row] = await tx.select({ id: answers.id, text: answers.text }).from(answers).where(and(eq(answers.runId, run!.id), eq(answers.externalId, externalId)));
    if (row!.text !== text) throw badInput(`answer: run '${runName}' already has answer '${externalId}' with different text`);
    return { id: row!.id, text, rubric: null };
  });
}

export async function createGradingSession(database: Database, o: SessionOptions): Promise<GradingSession> {
  const judge = typeof o.judge === 'string' ? loadJudge(o.judge) : o.judge;
  const adapter = o.adapter ?? (await createAdapter(judge, o.keys ?? {}));
  const judgeRowId = await ensureJudgeRow(database, judge);
  const behind = o.writeLingerMs ? { lingerMs: o.writeLingerMs } : {};
  const engine = createJudgeEngine({
    judge,
    adapter,
    cache: dbResponseCache(database),
    ledger: dbUsageLedger(database, { judgeId: judgeRowId, workerId: o.workerId ?? null }, behind),
    ledgerAndCache: dbLedgerAndCache(database, { judgeId: judgeRowId, workerId: o.workerId ?? null }, behind),
    ...(o.gate ? { gate: o.gate } : {}),
    ...(o.engine ?? {}),
  });

  // Rubric versions are immutable: one read per version for the session's life, not one per grade.
  const versions = new Map<number, Promise<{ rubric: Rubric; versionId: number; version: number }>>();
  const rubricVersion = (versionId: number) => {
    let v = versions.get(versionId);
    if (!v) {
      v = getRubricVersionById(database, versionId).then((view) => ({ rubric: toRubric(view), versionId, version: view.version }));
      v.catch(() => versions.delete(versionId));
      versions.set(versionId, v);
    }
    return v;
  };

  // One statement for what grade() reads in five (the answer, its rubric's latest version, this judge's
  // grade of it), shared by the jobs in flight (group commit).
  const readQueued = queuedAnswerReader(database, judgeRowId);

  async function gradeQueued(answerId: number, lease?: JobLease): Promise<StoredGrade | 'already graded' | 'lease lost'> {
    // Same checks and messages as getAnswer/resolveAnswer/resolveRubric.
    const row = await readQueued(answerId);
    if (!row) throw notFound(`answer ${answerId} not found`);
    if (row.gradeStatus != null && row.gradeStatus !== 'provider_error') return 'already graded';
    if (row.text === null || row.text.trim() === '') throw badInput(`answer ${answerId}: has no text to grade (status ${row.status})`);
    if (row.rubric === null) throw badInput('rubric: none given and the answer names no rubric');
    if (row.versionId === null) throw notFound(`rubric '${row.rubric}' has no version undefined (latest is 0)`);
    const resolved = await rubricVersion(Number(row.versionId));
    return gradeResolved({}, { id: answerId, text: row.text }, resolved, lease);
  }

  async function grade(req: GradeRequest): Promise<StoredGrade> {
    // Reads first: a stored answer names its rubric; answer text is stored only once the rubric resolved.
    const stored = 'id' in req.answer ? await resolveAnswer(database, req) : null;
    const resolved = await resolveRubric(database, req, stored?.rubric ?? null);
    const answer = stored ?? (await resolveAnswer(database, req));
    return gradeResolved(req, answer, resolved) as Promise<StoredGrade>;
  }

  const upsertGrade = gradeUpserter(database, behind);

  async function gradeResolved(
    req: Pick<GradeRequest, 'image' | 'unverifiable'>,
    answer: { id: number; text: string },
    { rubric, versionId, version }: { rubric: Rubric; versionId: number; version: number },
    lease?: JobLease,
  ): Promise<StoredGrade | 'lease lost'> {
    const outcome = await engine.grade({ rubric, answer: answer.text, answerId: String(answer.id), ...(req.image ? { image: req.image } : {}), ...(lease ? { lease } : {}) });
    if (outcome.leaseLost) return 'lease lost';
    const report = buildReport(rubric, answer.text, outcome, req.unverifiable ? { unverifiable: req.unverifiable } : {});
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
      meta: { ...report.meta, judge: report.judge, cached: outcome.cached, calls: outcome.calls },
      rawOutput: outcome.raw,
      inputTokens: outcome.usage.input,
      outputTokens: outcome.usage.output,
      cacheReadTokens: outcome.usage.cacheRead,
      cacheWriteTokens: outcome.usage.cacheWrite,
      costUsd: outcome.costUsd,
      latencyMs: Math.round(outcome.latencyMs),
    };
    // One statement is atomic on its own: no BEGIN/COMMIT round trips around it.
    const gradeId = await upsertGrade(row satisfies GradeRow, lease);
    if (gradeId === null) return 'lease lost';
    return { ...report, gradeId, answerId: answer.id, rubric: { id: rubric.id, version } };
  }

  return { engine, judgeRowId, grade, gradeQueued };
}

/** One answer, one judge: the `assay grade` and POST /grades use case. */
export async function gradeAnswer(database: Database, req: GradeRequest & SessionOptions): Promise<StoredGrade> {
  // Bad input is refused before the session registers the judge or a rubric document is versioned.
  await checkGradeRequest(database, req);
  const session = await createGradingSession(database, req);
  return session.grade(req);
}

/** A stored grade by answer and judge slug (the newest judge config with that slug that graded it). */
export async function getGrade(database: Database, answerId: number, judgeSlug: string): Promise<typeof grades.$inferSelect> {
  const [row] = await database.db
    .select({ g: grades })
    .from(grades)
    .innerJoin(judges, eq(judges.id, grades.judgeId))
    .where(and(eq(grades.answerId, answerId), eq(judges.slug, judgeSlug)))
    .orderBy(desc(grades.createdAt));
  if (!row) throw notFound(`no grade of answer ${answerId} by judge '${judgeSlug}'`);
  return row.g;
}

/**
 * Labels for `assay calibrate --run R --judge J`: the run's stored labels (human, and any judge labels
 * imported as labels) plus judge J's ok grades as kind "judge" — per item (verdicts) for rubric judges,
 * per answer (pass/fail) for reference-match judges. Answers are keyed by their external id.
 */
export async function loadCalibrationLabels(database: Database, q: { run: string; judge: string }): Promise<LabelRow[]> {
  const db = database.db;
  const [run] = await db.select().from(runs).where(eq(runs.name, q.run));
  if (!run) throw notFound(`run '${q.run}' not found`);
  const judgeRows = await db.select({ id: judges.id }).from(judges).where(eq(judges.slug, q.judge));
  if (judgeRows.length === 0) throw notFound(`judge '${q.judge}' has graded nothing (no such judge in the database)`);
  const out: LabelRow[] = [];
  const stored = await db
    .select({ ext: answers.externalId, item: labels.itemKey, rater: labels.annotator, kind: labels.kind, label: labels.label })
    .from(labels)
    .innerJoin(answers, eq(answers.id, labels.answerId))
    .where(eq(answers.runId, run.id));
  // Claim marks from the annotation pages (item claim:<n>) are not calibration units.
  for (const l of stored) if (!l.item.startsWith('claim:')) out.push({ answer: l.ext, ...(l.item ? { item: l.item } : {}), model: run.model, rater: l.rater, kind: l.kind, label: l.label });
  const graded = await db
    .select({ ext: answers.externalId, items: grades.items, meta: grades.meta })
    .from(grades)
    .innerJoin(answers, eq(answers.id, grades.answerId))
    .where(and(eq(answers.runId, run.id), eq(grades.status, 'ok'), inArray(grades.judgeId, judgeRows.map((j) => j.id))));
  for (const g of graded) {
    const base = { answer: g.ext, model: run.model, rater: q.judge, kind: 'judge' as const };
    const label = (g.meta as Record<string, unknown> | null)?.label;
    if (typeof label === 'string') out.push({ ...base, label });
    for (const it of g.items ?? []) out.push({ ...base, item: it.id, label: it.verdict });
  }
  return out;
}
