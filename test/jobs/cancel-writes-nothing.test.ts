import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GradingQueue, gradingQueue } from '../../src/services/grading/queue.ts';
import { cancelRunGrading, enqueueRunGrading } from '../../src/services/grading/run-queue.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';
import { JUDGE_FILE, seedRun, TEST_BOSS } from './helpers.ts';

/** Issue 11 finding 4 (audit): cancelling for a judge that never graded the run is a no-op, not a write. */
describeDb('cancel for an unused judge', (ctx) => {
  let queue: GradingQueue;
  beforeAll(async () => {
    queue = gradingQueue(ctx.database, TEST_BOSS);
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
  });

  it('writes no judges row and cancels nothing; the run’s own judge still cancels', async () => {
    await seedRun(ctx.database, 'c-run', 3);
    await enqueueRunGrading(ctx.database, queue, { run: 'c-run', judge: JUDGE_FILE });
    const before = await rowCounts(ctx.database);
    expect(await cancelRunGrading(ctx.database, queue, { run: 'c-run', judge: 'lexical' })).toEqual({ cancelled: 0 });
    expect(await rowCounts(ctx.database)).toEqual(before);
    expect(await cancelRunGrading(ctx.database, queue, { run: 'c-run', judge: JUDGE_FILE })).toEqual({ cancelled: 3 });
  });
});
