import { expect, it } from 'vitest';
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
});
