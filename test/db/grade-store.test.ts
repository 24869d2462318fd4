import { afterAll, beforeAll, expect, it } from 'vitest';
import { gradeUpserter, type GradeRow, type WrittenGrade } from '../../src/db/grade-store.ts';
import { GRADE_QUEUE } from '../../src/jobs/boss.ts';
import { leaseOf } from '../../src/jobs/leases.ts';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { dbLedgerAndCache, dbResponseCache } from '../../src/db/judge-store.ts';
import { loadJudge } from '../../src/judges/config.ts';
import { ensureJudgeRow } from '../../src/services/grading/judge-row.ts';
import { isFinalGrade, sqlText } from '../../src/services/grading/needs-grading.ts';
import { queuedAnswerReader } from '../../src/services/grading/queued-read.ts';
import { describeDb } from '../helpers/db.ts';
import { JUDGE_FILE, seedRun, TEST_BOSS } from '../jobs/helpers.ts';
import { farmyard } from '../judges/harness.ts';

/** The group-committed statements of a grading worker, on both engines. */
describeDb('grade store', (ctx) => {
  const row = (answerId: number, judgeId: number, versionId: number, f1: number, status = 'ok'): GradeRow => ({
    answerId, judgeId, rubricVersionId: versionId, promptHash: 'p', status, reason: null, completeness: f1, correctness: f1, f1,
    items: [{ id: 'barn', verdict: 'correct' }], claims: [], meta: { n: f1 }, rawOutput: `{"f1":${f1}}`,
    inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.001, latencyMs: 7,
  });

  it('reads a batch of queued answers in one go, with the latest rubric version and whether this judge graded it', async () => {
    const { answerIds } = await seedRun(ctx.database, 'gs-read', 3);
    const judgeId = await ensureJudgeRow(ctx.database, loadJudge('lexical'));
    const read = queuedAnswerReader(ctx.database, judgeId);
    const [a, b, missing] = await Promise.all([read(answerIds[0]!), read(answerIds[1]!), read(999_999)]);
    expect(a).toMatchObject({ id: answerIds[0], status: 'ok', rubric: farmyard.id, skip: null, graded: false });
    expect(a!.text).toContain('gs-read answer 0');
    expect(b!.versionId).toBe(a!.versionId);
    expect(missing).toBeUndefined();
    // A provider_error grade is not final (the answer still needs a grade); a refusal is.
    await gradeUpserter(ctx.database)(row(answerIds[0]!, judgeId, a!.versionId!, 0.5, 'provider_error'));
    expect((await read(answerIds[0]!))!.graded).toBe(false);
    await gradeUpserter(ctx.database)(row(answerIds[0]!, judgeId, a!.versionId!, 0.5, 'refused'));
    expect((await read(answerIds[0]!))!.graded).toBe(true);
  });

  it('upserts grades in one statement; two grades of one answer in a batch are applied in order', async () => {
    const { answerIds } = await seedRun(ctx.database, 'gs-upsert', 2);
    const judgeId = await ensureJudgeRow(ctx.database, loadJudge('lexical'));
    const version = (await queuedAnswerReader(ctx.database, judgeId)(answerIds[0]!))!.versionId!;
    const upsert = gradeUpserter(ctx.database);
    const ids = await Promise.all([upsert(row(answerIds[0]!, judgeId, version, 0.25)), upsert(row(answerIds[1]!, judgeId, version, 0.5)), upsert(row(answerIds[0]!, judgeId, version, 0.75))]);
    const [first, second, third] = ids as WrittenGrade[];
    expect(first!.id).toBe(third!.id);
    expect(second!.id).not.toBe(first!.id);
    const stored = await ctx.database.execute(`select answer_id, f1, items, meta, raw_output, cost_usd from grades where judge_id = $1 and answer_id = any($2::int[]) order by answer_id`, [judgeId, answerIds]);
    expect(stored.rows.map((r) => [Number(r.answer_id), r.f1, r.meta, r.raw_output, r.cost_usd])).toEqual([
      [answerIds[0], 0.75, { n: 0.75 }, '{"f1":0.75}', 0.001],
      [answerIds[1], 0.5, { n: 0.5 }, '{"f1":0.5}', 0.001],
    ]);
    expect(stored.rows[0].items).toEqual([{ id: 'barn', verdict: 'correct' }]);
  });

  it('writes ledger rows and cache entries together; a repeated call key or cache key is skipped', async () => {
    const judgeId = await ensureJudgeRow(ctx.database, loadJudge('lexical'));
    const write = dbLedgerAndCache(ctx.database, { judgeId });
    const cache = dbResponseCache(ctx.database);
    const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0 };
    const entry = (callKey: string) => ({ callKey, provider: 'anthropic', model: 'm', judgeId: 'lexical', judgeConfigHash: 'h', answerHash: 'a', usage, costUsd: 0.01, latencyMs: 12.4, status: 'ok' });
    const value = (raw: string) => ({ output: { items: [], claims: [] }, raw, stop: 'end' as const, usage, calls: 1, model: 'm', promptHash: 'p' }) as never;
    await Promise.all([write.recordAndCache(entry('gs-k1'), 'gs-c1', value('one')), write.recordAndCache(entry('gs-k2'), 'gs-c1', value('two')), write.recordAndCache(entry('gs-k1'), 'gs-c2', value('three'))]);
    const ledger = await ctx.database.execute(`select call_key, latency_ms from usage_ledger where call_key like 'gs-%' order by call_key`);
    expect(ledger.rows.map((r) => [r.call_key, r.latency_ms])).toEqual([['gs-k1', 12], ['gs-k2', 12]]);
    const [c1, c2, none] = await Promise.all([cache.get('gs-c1'), cache.get('gs-c2'), cache.get('gs-none')]);
    expect(c1!.raw).toBe('one');
    expect(c2!.raw).toBe('three');
    expect(none).toBeUndefined();
  });

  const stored = async (answerId: number, judgeId: number) =>
    (await ctx.database.execute(`select id, status, f1 from grades where answer_id = $1 and judge_id = $2`, [answerId, judgeId])).rows.map((r) => [Number(r.id), r.status, r.f1]);

  it('keepFinal: a failed grade does not replace a final one (kept, reported so); it replaces a provider_error; an ok grade replaces any', async () => {
    const { answerIds } = await seedRun(ctx.database, 'gs-keep', 3);
    const [a, b, c] = answerIds as [number, number, number];
    const judgeId = await ensureJudgeRow(ctx.database, loadJudge('lexical'));
    const version = (await queuedAnswerReader(ctx.database, judgeId)(a))!.versionId!;
    const upsert = gradeUpserter(ctx.database, {}, { isFinal: sqlText(isFinalGrade) });
    const okA = await upsert(row(a, judgeId, version, 0.75));
    const refusedB = await upsert(row(b, judgeId, version, 0, 'refused'));
    // One statement: a failure over an ok grade and over a refusal (both final) is kept; over nothing it is written.
    const [overOk, overRefused, fresh] = await Promise.all([
      upsert(row(a, judgeId, version, 0, 'provider_error'), undefined, { keepFinal: true }),
      upsert(row(b, judgeId, version, 0, 'parse_failure'), undefined, { keepFinal: true }),
      upsert(row(c, judgeId, version, 0, 'provider_error'), undefined, { keepFinal: true }),
    ]);
    expect(overOk).toBe('kept');
    expect(overRefused).toBe('kept');
    expect(await stored(a, judgeId)).toEqual([[(okA as { id: number }).id, 'ok', 0.75]]);
    expect(await stored(b, judgeId)).toEqual([[(refusedB as { id: number }).id, 'refused', 0]]);
    const freshId = (fresh as { id: number }).id;
    expect(await stored(c, judgeId)).toEqual([[freshId, 'provider_error', 0]]);
    // A provider_error is not final: a failure (a retry's) replaces it, and an ok grade replaces that.
    expect(await upsert(row(c, judgeId, version, 0.1, 'refused'), undefined, { keepFinal: true })).toMatchObject({ id: freshId });
    expect(await stored(c, judgeId)).toEqual([[freshId, 'refused', 0.1]]);
    expect(await upsert(row(a, judgeId, version, 0.5), undefined, { keepFinal: true })).toMatchObject({ id: (okA as { id: number }).id });
    expect(await stored(a, judgeId)).toEqual([[(okA as { id: number }).id, 'ok', 0.5]]);
    // Without keepFinal (a deliberate regrade) the new grade replaces the stored one, whatever both are.
    expect(await upsert(row(a, judgeId, version, 0.25))).toMatchObject({ id: (okA as { id: number }).id });
    expect(await stored(a, judgeId)).toEqual([[(okA as { id: number }).id, 'ok', 0.25]]);
    expect(await upsert(row(b, judgeId, version, 0, 'provider_error'))).toMatchObject({ id: (refusedB as { id: number }).id });
    expect(await stored(b, judgeId)).toEqual([[(refusedB as { id: number }).id, 'provider_error', 0]]);
  });

  it('keepFinal without the rule of a final grade is refused (nothing written)', async () => {
    const { answerIds } = await seedRun(ctx.database, 'gs-keep-norule', 1);
    const judgeId = await ensureJudgeRow(ctx.database, loadJudge('lexical'));
    const version = (await queuedAnswerReader(ctx.database, judgeId)(answerIds[0]!))!.versionId!;
    await expect(gradeUpserter(ctx.database)(row(answerIds[0]!, judgeId, version, 0, 'provider_error'), undefined, { keepFinal: true })).rejects.toThrow(/isFinal/);
    expect(await stored(answerIds[0]!, judgeId)).toEqual([]);
  });
});

/** Under a job lease: a failure kept over a final grade says 'kept', a lease no longer held says null. */
describeDb('grade store, keepFinal under a lease', (ctx) => {
  let queue: GradingQueue;
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
  });
  const row = (answerId: number, judgeId: number, versionId: number, status: string, f1: number): GradeRow => ({
    answerId, judgeId, rubricVersionId: versionId, promptHash: 'p', status, reason: null, completeness: f1, correctness: f1, f1,
    items: [], claims: [], meta: {}, rawOutput: null, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, latencyMs: 1,
  });

  it('tells a kept final grade from a lost lease', async () => {
    const { answerIds } = await seedRun(ctx.database, 'gs-keep-lease', 2);
    const [a, b] = answerIds as [number, number];
    const { judge: { id: judgeId } } = await enqueueRunGrading(ctx.database, queue, { run: 'gs-keep-lease', judge: JUDGE_FILE });
    const version = (await queuedAnswerReader(ctx.database, judgeId)(a))!.versionId!;
    const jobs = await (await queue.boss()).fetch<{ answerId: number }>(GRADE_QUEUE, { batchSize: 2, includeMetadata: true });
    const lease = (answerId: number) => leaseOf(jobs.find((j) => j.data.answerId === answerId)!);
    const upsert = gradeUpserter(ctx.database, {}, { isFinal: sqlText(isFinalGrade) });
    const ok = await upsert(row(a, judgeId, version, 'ok', 0.75));
    // Held lease, final grade stored: kept. A lease of another fetch (the job taken over): nothing written, null.
    expect(await upsert(row(a, judgeId, version, 'provider_error', 0), lease(a), { keepFinal: true })).toBe('kept');
    expect(await upsert(row(b, judgeId, version, 'provider_error', 0), { ...lease(b), token: lease(b).token + 1 }, { keepFinal: true })).toBeNull();
    expect((await ctx.database.execute(`select id, status from grades where judge_id = $1 and answer_id = any($2::int[])`, [judgeId, answerIds])).rows.map((r) => [Number(r.id), r.status])).toEqual([
      [(ok as { id: number }).id, 'ok'],
    ]);
    // Held lease, no final grade: written.
    expect(await upsert(row(b, judgeId, version, 'provider_error', 0), lease(b), { keepFinal: true })).toMatchObject({ id: expect.any(Number) });
  }, 60_000);
});
