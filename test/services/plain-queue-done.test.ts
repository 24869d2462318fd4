import { expect, it } from 'vitest';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { annotationProgress } from '../../src/services/annotation-progress.ts';
import { annotationTask } from '../../src/services/annotation-task.ts';
import { saveWorkspaceMarks } from '../../src/services/workspace.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * The plain annotation queue's "done": every scale the queue asks has the annotator's label — all
 * rubric items and all claims, plus the pass/fail and the rating when `?scale=binary|numeric` asks them.
 */
describeDb('plain queue: done means every asked scale', (ctx) => {
  it('items alone, then claims, then pass/fail and rating when asked', async () => {
    await seedExamples(ctx.database);
    await importAnswersJsonl(ctx.database, {
      path: 'done.jsonl',
      content: JSON.stringify({ id: 'two-sentences', run: 'done-run', model: 'm', task: 'describe', rubric: 'farmyard-54', text: 'A red barn.\nThree pigs.' }),
    });
    const id = Number((await ctx.database.execute(`select id from answers where external_id = 'two-sentences'`)).rows[0]!.id);
    const row = async (extra: Array<'binary' | 'numeric'> = []) => (await annotationProgress(ctx.database, 'dora', { run: 'done-run', extra })).rows.find((r) => r.answerId === id)!;
    const t = await annotationTask(ctx.database, id, 'dora');
    expect(t.items).toHaveLength(17);
    expect(t.claims.map((c) => c.text)).toEqual(['A red barn.', 'Three pigs.']);

    await saveWorkspaceMarks(ctx.database, { answerId: id, annotator: 'dora', marks: t.items.map((i) => ({ item: i.id, label: 'missing' })) });
    expect(await row()).toMatchObject({ labelled: 17, items: 17, claims: 2, claimsMarked: 0, done: false });
    await saveWorkspaceMarks(ctx.database, { answerId: id, annotator: 'dora', marks: [{ claim: 0, label: 'true' }] });
    expect((await row()).done).toBe(false);
    await saveWorkspaceMarks(ctx.database, { answerId: id, annotator: 'dora', marks: [{ claim: 1, label: 'false' }] });
    expect(await row()).toMatchObject({ claimsMarked: 2, done: true });

    // Asking pass/fail and a rating reopens the answer until both are given.
    expect(await row(['binary', 'numeric'])).toMatchObject({ binary: false, rating: false, done: false });
    const queue = await annotationProgress(ctx.database, 'dora', { run: 'done-run', extra: ['binary'] });
    expect([queue.done, queue.started, queue.next]).toEqual([0, 1, id]);
    await saveWorkspaceMarks(ctx.database, { answerId: id, annotator: 'dora', marks: [{ binary: 'pass' }] });
    expect(await row(['binary'])).toMatchObject({ binary: true, done: true });
    expect((await row(['binary', 'numeric'])).done).toBe(false);
    await saveWorkspaceMarks(ctx.database, { answerId: id, annotator: 'dora', marks: [{ rating: 3 }] });
    expect(await row(['binary', 'numeric'])).toMatchObject({ binary: true, rating: true, done: true });
    // Another annotator's queue is untouched.
    expect((await annotationProgress(ctx.database, 'eve', { run: 'done-run' })).done).toBe(0);
  });
});
