import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { grades, judges, labels, rubricItems, rubricVersions } from '../../../src/db/schema.ts';
import { campaignAgreement, createCampaign, saveCampaignLabels } from '../../../src/services/campaigns/index.ts';
import { calibrationLabelSet, loadRunCalibration } from '../../../src/services/grading/calibration-labels.ts';
import { importLabels } from '../../../src/services/import-labels.ts';
import { saveAnnotations } from '../../../src/services/web-annotation.ts';
import { describeDb } from '../../helpers/db.ts';
import { seedCampaignWorld } from '../campaigns/fixture.ts';

/**
 * Labels record the rubric version they were given against, and calibration never pairs a label of an
 * item with a grade of that item id whose text differs in the grade's version: such rows are left out,
 * counted and named in the report's notes; rows of unknown version are kept and counted as such.
 */
describeDb('labels and rubric versions', (ctx) => {
  it('records the version, and leaves out labels of an item whose text changed, visibly', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'ver-run', n: 1, disagree: [] });
    const answerId = answerIds[0]!;
    const db = ctx.database.db;
    const [v1] = await db.select().from(rubricVersions).where(eq(rubricVersions.contentHash, 'h-ver-run'));
    // Plain and campaign labels both record version 1.
    await saveAnnotations(ctx.database, { answerId, annotator: 'ann', marks: [{ item: 'a', label: 'correct' }, { item: 'b', label: 'correct' }] });
    await createCampaign(ctx.database, { name: 'ver-c', answers: { run: 'ver-run' }, scales: { verdict: true }, annotators: ['bea', 'cai'], overlap: 2 });
    await saveCampaignLabels(ctx.database, { campaign: 'ver-c', answerId, annotator: 'bea', marks: [{ scale: 'verdict', item: 'a', label: 'correct' }, { scale: 'verdict', item: 'b', label: 'missing' }] });
    // An import says which version when it knows it, and nothing when it does not.
    const file = (rows: object[]) => ({ path: 'labels.jsonl', content: rows.map((r) => JSON.stringify(r)).join('\n') });
    await importLabels(ctx.database, file([{ answer: 'q0', run: 'ver-run', item: 'a', rater: 'dan', label: 'correct', rubric_version: 1 }, { answer: 'q0', run: 'ver-run', item: 'b', rater: 'eve', label: 'correct' }]));
    await expect(importLabels(ctx.database, file([{ answer: 'q0', run: 'ver-run', item: 'a', rater: 'fay', label: 'correct', rubric_version: 7 }]))).rejects.toThrow('rubric_version');
    const stored = await db.select({ annotator: labels.annotator, item: labels.itemKey, v: labels.rubricVersionId }).from(labels).where(eq(labels.answerId, answerId));
    expect(stored.map((s) => `${s.annotator}:${s.item}:${s.v === null ? 'unknown' : s.v === v1!.id ? 'v1' : s.v}`).sort()).toEqual(['ann:a:v1', 'ann:b:v1', 'bea:a:v1', 'bea:b:v1', 'dan:a:v1', 'eve:b:unknown']);

    // Version 2 rewords item b; j1 grades against it, j2's grade stays on version 1.
    const [v2] = await db.insert(rubricVersions).values({ rubricId: v1!.rubricId, version: 2, title: 'Farm', reference: 'A red barn and three goats.', contentHash: 'h-ver-run-2' }).returning();
    await db.insert(rubricItems).values([
      { rubricVersionId: v2!.id, itemKey: 'a', text: 'a red barn', weight: 1, position: 0 },
      { rubricVersionId: v2!.id, itemKey: 'b', text: 'three goats', weight: 1, position: 1 },
    ]);
    const [j1] = await db.select().from(judges).where(eq(judges.configHash, 'j1-ver-run'));
    await db.insert(grades).values({ answerId, judgeId: j1!.id, rubricVersionId: v2!.id, status: 'ok', items: [{ id: 'a', verdict: 'correct' }, { id: 'b', verdict: 'incorrect' }] as never });

    const set = await calibrationLabelSet(ctx.database, { key: 'externalId', run: 'ver-run', scale: 'verdict' });
    const units = set.rows.map((r) => `${r.rater}:${r.item}`).sort();
    // Item a (same text in both versions) keeps everyone; item b keeps only what was given against version 2's text, and eve's label of unknown version.
    expect(units).toEqual(['ann:a', 'bea:a', 'dan:a', 'eve:b', 'j1:a', 'j1:b', 'j2:a']);
    expect(set.versions).toEqual({ textChanged: 3, unknown: 1, superseded: 0 });
    const run = await loadRunCalibration(ctx.database, { run: 'ver-run', judge: 'j1', scale: 'verdict' });
    expect(run.notes!.join('\n')).toMatch(/2 item label\(s\) or grade\(s\) left out: given against a rubric version whose text of the item differs/);
    expect(run.notes!.join('\n')).toMatch(/1 item label\(s\) of unknown rubric version/);
    const [agreement] = await campaignAgreement(ctx.database, 'ver-c');
    expect(agreement!.report!.notes.join('\n')).toMatch(/left out: given against a rubric version whose text of the item differs/);
  });

  it('migration 0010 derives the version current when an existing label was written', async () => {
    const { answerIds } = await seedCampaignWorld(ctx.database, { run: 'mig-run', n: 1, disagree: [] });
    const answerId = answerIds[0]!;
    const db = ctx.database.db;
    const [v1] = await db.select().from(rubricVersions).where(eq(rubricVersions.contentHash, 'h-mig-run'));
    const [v2] = await db.insert(rubricVersions).values({ rubricId: v1!.rubricId, version: 2, title: 'Farm', reference: 'x', contentHash: 'h-mig-run-2' }).returning();
    await db.insert(rubricItems).values({ rubricVersionId: v2!.id, itemKey: 'a', text: 'a red barn', weight: 1, position: 0 });
    await ctx.database.execute(`update rubric_versions set created_at = $2 where id = $1`, [v1!.id, '2026-01-01T00:00:00Z']);
    await ctx.database.execute(`update rubric_versions set created_at = $2 where id = $1`, [v2!.id, '2026-02-01T00:00:00Z']);
    await db.insert(labels).values([
      { answerId, itemKey: 'a', annotator: 'old', label: 'correct', createdAt: new Date('2025-12-01T00:00:00Z') },
      { answerId, itemKey: 'a', annotator: 'mid', label: 'correct', createdAt: new Date('2026-01-15T00:00:00Z') },
      { answerId, itemKey: 'a', annotator: 'new', label: 'correct', createdAt: new Date('2026-03-01T00:00:00Z') },
      // Item b is not in version 2: the version current then did not have it, so which one the person read is unknown.
      { answerId, itemKey: 'b', annotator: 'new', label: 'correct', createdAt: new Date('2026-03-01T00:00:00Z') },
    ]);
    const dir = join(import.meta.dirname, '../../../migrations');
    const sql = readFileSync(join(dir, readdirSync(dir).find((f) => f.startsWith('0010_'))!), 'utf8');
    const backfill = sql.split('--> statement-breakpoint').map((s) => s.trim()).find((s) => /^update "labels"/i.test(s));
    expect(backfill).toBeDefined();
    await ctx.database.execute(backfill!);
    const r = await db.select({ annotator: labels.annotator, item: labels.itemKey, v: labels.rubricVersionId }).from(labels).where(eq(labels.answerId, answerId));
    expect(Object.fromEntries(r.map((x) => [`${x.annotator}:${x.item}`, x.v]))).toEqual({ 'old:a': null, 'mid:a': v1!.id, 'new:a': v2!.id, 'new:b': null });
  });
});
