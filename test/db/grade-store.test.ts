import { expect, it } from 'vitest';
import { gradeUpserter, type GradeRow } from '../../src/db/grade-store.ts';
import { dbLedgerAndCache, dbResponseCache } from '../../src/db/judge-store.ts';
import { loadJudge } from '../../src/judges/config.ts';
import { ensureJudgeRow } from '../../src/services/grading/judge-row.ts';
import { queuedAnswerReader } from '../../src/services/grading/queued-read.ts';
import { describeDb } from '../helpers/db.ts';
import { seedRun } from '../jobs/helpers.ts';
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
    expect(ids[0]!.id).toBe(ids[2]!.id);
    expect(ids[1]!.id).not.toBe(ids[0]!.id);
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
});
