import { and, eq, inArray } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { rubricItems, rubricVersions, rubrics } from '../../src/db/schema.ts';
import { annotationProgress } from '../../src/services/annotation-progress.ts';
import { annotationTask } from '../../src/services/annotation-task.ts';
import { saveAnnotations } from '../../src/services/web-annotation.ts';
import { describeDb } from '../helpers/db.ts';
import { seedCampaignWorld } from './campaigns/fixture.ts';

/**
 * Item ids are slugs: `constructor`, `toString` and `valueOf` are valid ones. An annotator's labels were
 * kept in a plain object, so reading an item nobody labelled found Object.prototype's function instead
 * of nothing: the task showed a "label" for it and the progress counted it as labelled (HTTP 200).
 */
describeDb('annotation: item ids that are names of Object.prototype', (ctx) => {
  it('an unlabelled item called constructor or toString has no label, and counts as not labelled', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'proto-names', n: 1, disagree: [] });
    const id = answerIds[0]!;
    const [rb] = await ctx.database.db.select({ id: rubrics.id }).from(rubrics).where(eq(rubrics.slug, 'rb-proto-names'));
    const versions = (await ctx.database.db.select({ id: rubricVersions.id }).from(rubricVersions).where(eq(rubricVersions.rubricId, rb!.id))).map((v) => v.id);
    const rename = (from: string, to: string) =>
      ctx.database.db.update(rubricItems).set({ itemKey: to }).where(and(inArray(rubricItems.rubricVersionId, versions), eq(rubricItems.itemKey, from)));
    await rename('a', 'toString');
    await rename('b', 'constructor');
    const before = await annotationTask(ctx.database, id, 'ann');
    expect(before.items.map((i) => [i.id, i.label])).toEqual([['toString', null], ['constructor', null]]);
    await saveAnnotations(ctx.database, { answerId: id, annotator: 'ann', marks: [{ item: 'constructor', label: 'correct' }] });
    const after = await annotationTask(ctx.database, id, 'ann');
    expect(after.items.map((i) => [i.id, i.label])).toEqual([['toString', null], ['constructor', 'correct']]);
    expect((await annotationProgress(ctx.database, 'ann', { run: 'proto-names' })).rows.find((r) => r.answerId === id)).toMatchObject({ items: 2, labelled: 1 });
  });
});
