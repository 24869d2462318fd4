import type { Database } from '../../../src/db/client.ts';
import { answers, grades, judges, rubricItems, rubrics, rubricVersions, runs } from '../../../src/db/schema.ts';

/**
 * A small stored world for campaign tests: one rubric (items a, b), one run of `n` describe answers
 * (ids q0..q{n-1}) and two judges. Judges j1 and j2 agree on every answer except those in `disagree`,
 * where j2 gives item b another verdict.
 */
export async function seedCampaignWorld(database: Database, opts: { run: string; n: number; disagree: number[] }): Promise<{ answerIds: number[] }> {
  const db = database.db;
  const [rb] = await db.insert(rubrics).values({ slug: `rb-${opts.run}`, title: 'Farm' }).returning();
  const [rv] = await db
    .insert(rubricVersions)
    .values({ rubricId: rb!.id, version: 1, title: 'Farm', reference: 'A red barn and two sheep.', contentHash: `h-${opts.run}` })
    .returning();
  await db.insert(rubricItems).values([
    { rubricVersionId: rv!.id, itemKey: 'a', text: 'a red barn', weight: 1, position: 0 },
    { rubricVersionId: rv!.id, itemKey: 'b', text: 'two sheep', weight: 1, position: 1 },
  ]);
  const [run] = await db.insert(runs).values({ name: opts.run, model: 'm1' }).returning();
  const rows = await db
    .insert(answers)
    .values(Array.from({ length: opts.n }, (_, i) => ({ runId: run!.id, externalId: `q${i}`, task: 'describe' as const, rubricId: rb!.id, text: `A red barn. Sheep number ${i}.` })))
    .returning({ id: answers.id });
  const answerIds = rows.map((r) => r.id);
  const js = await db
    .insert(judges)
    .values(['j1', 'j2'].map((slug) => ({ slug, provider: 'lexical', model: slug, config: {}, configHash: `${slug}-${opts.run}` })))
    .returning({ id: judges.id, slug: judges.slug });
  for (const [i, id] of answerIds.entries()) {
    for (const j of js) {
      const b = j.slug === 'j2' && opts.disagree.includes(i) ? 'missing' : 'correct';
      await db.insert(grades).values({ answerId: id, judgeId: j.id, rubricVersionId: rv!.id, status: 'ok', items: [{ id: 'a', verdict: 'correct' }, { id: 'b', verdict: b }] as never });
    }
  }
  return { answerIds };
}
