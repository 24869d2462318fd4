import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { checkRunGrading, enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { describeDb } from '../helpers/db.ts';
import { JUDGE_FILE, seedRun, TEST_BOSS } from './helpers.ts';

/**
 * enqueueRunGrading refuses what checkRunGrading refuses, with the same error and in the same order (it
 * runs that one check), and writes nothing — no judges row, grading run, rate limit or job — until every
 * check has passed. Before, it repeated the checks in its own order: a bad rate limit was reported ahead
 * of a changed prompt template, so fixing the limit only met the next refusal.
 */
describeDb('enqueueRunGrading runs checkRunGrading first', (ctx) => {
  let queue: GradingQueue;
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
  });
  const counts = async () => {
    const out: Record<string, number> = {};
    for (const t of ['judges', 'grading_runs', 'rate_limits']) out[t] = Number((await ctx.database.execute(`select count(*)::int as n from ${t}`)).rows[0].n);
    out.jobs = Number((await ctx.database.execute(`select count(*)::int as n from pgboss.job where name = 'assay-grade'`)).rows[0].n);
    return out;
  };
  const refusal = (p: Promise<unknown>) => p.then(() => null, (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message }));

  it('same refusal as the check, nothing written', async () => {
    await seedRun(ctx.database, 'eq-checks', 2);
    // The judge's row is written by a first enqueue, which stores its template's text.
    await enqueueRunGrading(ctx.database, queue, { run: 'eq-checks', judge: JUDGE_FILE });
    await ctx.database.execute(`update judges set config = jsonb_set(config, '{promptText}', '"an earlier text of the template"'::jsonb) where slug = 'fake-claude'`);
    const before = await counts();
    const cases = [
      { run: 'eq-checks', judge: 'no-such-judge' },
      { run: 'no-such-run', judge: JUDGE_FILE },
      { run: 'no-such-run', judge: 'no-such-judge' },
      // The template changed since the configuration graded, and a limit no call could pass: the template first.
      { run: 'eq-checks', judge: JUDGE_FILE },
    ];
    for (const req of cases) {
      const checked = await refusal(checkRunGrading(ctx.database, req));
      expect(checked, JSON.stringify(req)).not.toBeNull();
      expect(await refusal(enqueueRunGrading(ctx.database, queue, { ...req, limits: { rpm: 0.5 } })), JSON.stringify(req)).toEqual(checked);
      expect(await refusal(enqueueRunGrading(ctx.database, queue, req)), JSON.stringify(req)).toEqual(checked);
    }
    expect((await refusal(checkRunGrading(ctx.database, { run: 'eq-checks', judge: JUDGE_FILE })))?.code).toBe('conflict');
    expect(await counts()).toEqual(before);
  }, 120_000);
});
