import { expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { answers, runs } from '../../src/db/schema.ts';
import { storeRubric } from '../../src/services/rubrics.ts';
import { describeDb } from '../helpers/db.ts';
import { farmyard } from '../judges/harness.ts';

/**
 * An answer whose call ended in error is never graded (needs-grading.ts, answerError), whatever text it kept.
 * Its page said "Not graded yet. Grade it with bin/assay grade …", a command that is refused (exit 2) for it.
 */
describeDb('answer page of an error answer', (ctx) => {
  it('says why it is not graded instead of offering a grade command that is refused', async () => {
    const { rubricId } = await ctx.database.db.transaction((tx) => storeRubric(tx, farmyard));
    const [run] = await ctx.database.db.insert(runs).values({ name: 'err-page', model: 'model-e' }).returning({ id: runs.id });
    const [a] = await ctx.database.db
      .insert(answers)
      .values({ runId: run!.id, externalId: 'e1', task: 'describe', rubricId, status: 'error', text: 'Let me zoom into the barn first' })
      .returning({ id: answers.id });
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    const html = await (await app.request(`http://127.0.0.1/answers/${a!.id}`, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('Not graded: the model&#39;s call ended in error (status error), so the text it kept is not its answer and no judge grades it.');
    expect(html).not.toContain('Grade it with');
  }, 60_000);
});
