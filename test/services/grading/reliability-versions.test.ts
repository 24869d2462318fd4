import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { grades, judges, labels, rubricItems, rubricVersions } from '../../../src/db/schema.ts';
import { loadReliability } from '../../../src/services/grading/calibration-reliability.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedCampaignWorld } from '../campaigns/fixture.ts';

/**
 * The reliability diagram pairs a confident verdict with the people's verdict of the same wording of the
 * item (label-versions.ts): labels on version 1 ("two sheep"), the judge's grade on version 2, which
 * rewords item b ("three goats"). Item b's label is of another item: left out and said so, not a point.
 */
describeDb('loadReliability and rubric versions', (ctx) => {
  it('leaves out labels of a reworded item, and says how many', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'relv', n: 1, disagree: [] });
    const answerId = answerIds[0]!;
    const db = ctx.database.db;
    const [v1] = await db.select().from(rubricVersions).where(eq(rubricVersions.contentHash, 'h-relv'));
    const [v2] = await db.insert(rubricVersions).values({ rubricId: v1!.rubricId, version: 2, title: 'Farm', reference: 'A red barn and three goats.', contentHash: 'h-relv-2' }).returning();
    await db.insert(rubricItems).values([
      { rubricVersionId: v2!.id, itemKey: 'a', text: 'a red barn', weight: 1, position: 0 },
      { rubricVersionId: v2!.id, itemKey: 'b', text: 'three goats', weight: 1, position: 1 },
    ]);
    const [j1] = await db.select().from(judges).where(eq(judges.configHash, 'j1-relv'));
    const item = (id: string, confidence: number) => ({ id, weight: 1, verdict: 'correct', evidence: '', points: 0, confidence, confidenceSource: 'logprob' as const });
    await db.insert(grades).values({ answerId, judgeId: j1!.id, rubricVersionId: v2!.id, status: 'ok', items: [item('a', 0.9), item('b', 0.8)], createdAt: new Date('2030-01-01') });
    await db.insert(labels).values([
      { answerId, itemKey: 'a', annotator: 'ann', kind: 'human', label: 'correct', rubricVersionId: v1!.id },
      { answerId, itemKey: 'b', annotator: 'ann', kind: 'human', label: 'correct', rubricVersionId: v1!.id },
    ]);
    const r = await loadReliability(ctx.database, { run: 'relv', judge: 'j1' });
    expect(r.points.map((p) => p.item)).toEqual(['a']);
    expect(r.notes.join('\n')).toMatch(/^1 item label\(s\) or grade\(s\) left out: given against a rubric version whose text of the item differs/);
  });
});
