import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openJudge } from '../../../src/services/grading/grade-answer.ts';
import { type GradingQueue, gradingQueue } from '../../../src/services/grading/queue.ts';
import { checkJudgeRef, enqueueRunGrading } from '../../../src/services/grading/run-queue.ts';
import { startWorker } from '../../../src/services/grading/worker.ts';
import { loadJudgeOrPanel } from '../../../src/judges/panel-config.ts';
import { describeDb } from '../../helpers/db.ts';
import { count, seedRun, TEST_BOSS } from '../../jobs/helpers.ts';

/**
 * A panel member with no key never lets the panel grade from the members that have one: `assay run` and
 * `assay grade` refuse it up front (bad input naming the panel, the member and the variable), and a worker
 * without the key fails the job (retried, then failed) — no panel grade is stored from the lexical member alone.
 */
describeDb('a panel member without its provider key', (ctx) => {
  let queue: GradingQueue;
  const dir = mkdtempSync(join(tmpdir(), 'assay-panel-keys-'));
  const panel = join(dir, 'k-panel.yaml');
  beforeAll(() => {
    queue = gradingQueue(ctx.database, { ...TEST_BOSS, retryLimit: 1 });
    writeFileSync(join(dir, 'k-claude.yaml'), 'id: k-claude\nprovider: anthropic\nmodel: claude-sonnet-5\nmode: rubric\nprompt: prompts/rubric-v1.md\n');
    // Quorum 1: the lexical member alone would be enough for an ok panel grade.
    writeFileSync(panel, 'id: k-panel\nprovider: panel\nmembers: [lexical, k-claude]\nquorum: 1\n');
  });
  afterAll(async () => {
    await queue?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused before grading, naming panel, member and variable', async () => {
    const message = 'panel k-panel: member judge k-claude: needs ANTHROPIC_API_KEY';
    expect(() => checkJudgeRef(panel, {})).toThrow(message);
    await expect(openJudge(loadJudgeOrPanel(panel), {})).rejects.toMatchObject({ code: 'bad_input', message });
  });

  it('fails the job in a worker without the key: no grade from the other member alone', async () => {
    const { runId } = await seedRun(ctx.database, 'panel-keys', 1);
    const enq = await enqueueRunGrading(ctx.database, queue, { run: 'panel-keys', judge: panel });
    const w = await startWorker(ctx.database, { concurrency: 1, pollMs: 20, queue, keys: {}, untilDone: [enq.gradingRunId] });
    await w.done;
    await w.stop();
    // Each attempt fails (the first and the queue's retry): none grades.
    expect(w.stats.graded).toBe(0);
    expect(w.stats.failed).toBeGreaterThanOrEqual(1);
    expect(await count(ctx.database, `select count(*)::int as n from grades g join answers a on a.id = g.answer_id join judges j on j.id = g.judge_id where a.run_id = $1 and j.slug = 'k-panel'`, [runId])).toBe(0);
  }, 120_000);
});
