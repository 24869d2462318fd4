import { expect, it } from 'vitest';
import type { Database } from '../../../src/db/client.ts';
import { gradeUpserter } from '../../../src/db/grade-store.ts';
import { createGradingSession } from '../../../src/services/grading/session.ts';
import { type Judge, ProviderCallError } from '../../../src/judges/types.ts';
import { describeDb } from '../../helpers/db.ts';
import { fullVerdicts } from '../../judges/harness.ts';
import { JUDGE_FILE, quietEngine, seedRun } from '../../jobs/helpers.ts';

/**
 * A queued grade (a worker's job, a --batch collection) whose call fails does not replace the final grade
 * another grader stored for the answer while the call ran (a live `assay grade`, a --batch collection, a
 * second worker): the job reads 'already graded' before its call, and the failure written after it used to
 * overwrite the ok grade in place (same answer × judge × rubric version), so the answer lost its verdicts and
 * was counted as a failure to grade again.
 */

const ok = (): Awaited<ReturnType<Judge['call']>> => {
  const v = fullVerdicts();
  return { structured: v, text: JSON.stringify(v), stop: 'complete', usage: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0 } };
};
const judgeWith = (call: Judge['call']): Judge => ({ provider: 'anthropic', model: 'claude-sonnet-5', baseline: false, call });

describeDb('a failed queued grade keeps a final grade written during its call', (ctx) => {
  it('the ok grade stored meanwhile stays; the job reads already graded', async () => {
    const { answerIds } = await seedRun(ctx.database, 'keep-final', 1);
    const id = answerIds[0]!;
    const live = await createGradingSession(ctx.database, { judge: JUDGE_FILE, adapter: judgeWith(async () => ok()), engine: quietEngine });
    const queued = await createGradingSession(ctx.database, {
      judge: JUDGE_FILE,
      engine: quietEngine,
      adapter: judgeWith(async () => {
        // While this call is out, the answer is graded live (ok), then this call fails.
        expect((await live.grade({ answer: { id } })).status).toBe('ok');
        throw new ProviderCallError('fatal', 'HTTP 400: bad request');
      }),
    });
    expect(await queued.gradeQueued(id)).toBe('already graded');
    const rows = (await ctx.database.execute(`select status, completeness from grades where answer_id = $1`, [id])).rows;
    expect(rows.map((r) => r.status)).toEqual(['ok']);
    expect(Number(rows[0]!.completeness)).toBeGreaterThan(0);
  });

  it('with no final grade stored, the failure is written (and retried by the queue)', async () => {
    const { answerIds } = await seedRun(ctx.database, 'keep-final-none', 1);
    const s = await createGradingSession(ctx.database, { judge: JUDGE_FILE, engine: quietEngine, adapter: judgeWith(async () => { throw new ProviderCallError('fatal', 'HTTP 400: bad request'); }) });
    const g = await s.gradeQueued(answerIds[0]!);
    expect(typeof g === 'string' ? g : g.status).toBe('provider_error');
    expect((await ctx.database.execute(`select status from grades where answer_id = $1`, [answerIds[0]])).rows.map((r) => r.status)).toEqual(['provider_error']);
  });

  it('an ok grade stored between the read of stored grades and the failure\'s write stays (the write itself keeps it)', async () => {
    const { answerIds } = await seedRun(ctx.database, 'keep-final-race', 1);
    const id = answerIds[0]!;
    const live = await createGradingSession(ctx.database, { judge: JUDGE_FILE, adapter: judgeWith(async () => ok()), engine: quietEngine });
    expect((await ctx.database.execute(`select 1 from grades where answer_id = $1`, [id])).rows).toEqual([]);
    // The other grader's ok grade, as the store writes it: taken from a live grade of a twin answer.
    const twin = (await seedRun(ctx.database, 'keep-final-race-twin', 1)).answerIds[0]!;
    const g = await live.grade({ answer: { id: twin } });
    expect(g.status).toBe('ok');
    const [t] = (await ctx.database.execute(`select * from grades where answer_id = $1`, [twin])).rows;
    const store = gradeUpserter(ctx.database);
    // The queued session's database: every statement goes through, and just before the grade upsert (after
    // every read the session makes) the other grader's ok grade is stored and committed.
    let interleaved = 0;
    const racing: Database = new Proxy(ctx.database, {
      get(target, prop, receiver) {
        if (prop !== 'execute') return Reflect.get(target, prop, receiver);
        return async (sql: string, params?: unknown[], opts?: { prepare?: boolean }) => {
          if (/^\s*(with[\s\S]*)?insert into grades/i.test(sql) && interleaved++ === 0) {
            await store({
              answerId: id, judgeId: Number(t.judge_id), rubricVersionId: Number(t.rubric_version_id), promptHash: t.prompt_hash, status: 'ok', reason: null,
              completeness: Number(t.completeness), correctness: Number(t.correctness), f1: Number(t.f1), items: t.items, claims: t.claims, meta: t.meta, rawOutput: t.raw_output,
              inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, latencyMs: 1,
            });
          }
          return target.execute(sql, params, opts);
        };
      },
    });
    const queued = await createGradingSession(racing, { judge: JUDGE_FILE, engine: quietEngine, adapter: judgeWith(async () => { throw new ProviderCallError('fatal', 'HTTP 400: bad request'); }) });
    expect(await queued.gradeQueued(id)).toBe('already graded');
    expect(interleaved).toBe(1);
    const rows = (await ctx.database.execute(`select status, completeness, items from grades where answer_id = $1`, [id])).rows;
    expect(rows.map((r) => r.status)).toEqual(['ok']);
    expect(Number(rows[0]!.completeness)).toBe(Number(t.completeness));
    expect(Number(t.completeness)).toBeGreaterThan(0);
    expect(rows[0]!.items).toEqual(t.items);
  });

  it('a deliberate regrade still replaces an ok grade by a new ok grade, in place', async () => {
    const { answerIds } = await seedRun(ctx.database, 'keep-final-regrade', 1);
    const id = answerIds[0]!;
    let partial = false;
    const s = await createGradingSession(ctx.database, {
      judge: JUDGE_FILE,
      engine: quietEngine,
      adapter: judgeWith(async () => {
        const r = ok();
        if (partial) (r.structured as { items: Array<{ verdict: string }> }).items.forEach((it) => (it.verdict = 'missing'));
        return { ...r, text: JSON.stringify(r.structured) };
      }),
    });
    const first = await s.grade({ answer: { id } });
    expect(first.status).toBe('ok');
    expect(first.completeness).toBeGreaterThan(0);
    partial = true;
    // A regrade asks the judge again (no cached verdict): it answers otherwise, still ok.
    await ctx.database.execute(`delete from judge_cache`);
    const again = await s.grade({ answer: { id } });
    const rows = (await ctx.database.execute(`select id, status, completeness from grades where answer_id = $1`, [id])).rows;
    expect(again.completeness).toBe(0);
    expect(rows.map((r) => [Number(r.id), r.status, Number(r.completeness)])).toEqual([[first.gradeId, 'ok', 0]]);
  });
});
