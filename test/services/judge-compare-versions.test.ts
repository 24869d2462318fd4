import { beforeAll, expect, it } from 'vitest';
import { judgeCompare } from '../../src/services/judge-compare.ts';
import { describeDb } from '../helpers/db.ts';
import { seedJudgeCompare } from './judge-compare-fixture.ts';

/**
 * A label is compared with a grade only where both were given against the same wording of the item
 * (grading/label-versions.ts): the people labelled the farmyard rubric's version 1; version 2 rewords
 * cow-in-barn, and both judges graded against version 2. The cow-in-barn labels (x1 ×3, x2, x3, x4) are
 * labels of another item: left out and counted in the notes, not compared with the judges' verdicts.
 */
describeDb('judgeCompare and rubric versions', (ctx) => {
  beforeAll(async () => {
    await seedJudgeCompare(ctx.database);
    const db = ctx.database;
    const v1 = Number((await db.execute(`select id from rubric_versions order by id limit 1`)).rows[0]!.id);
    const v2 = Number(
      (await db.execute(`insert into rubric_versions (rubric_id, version, title, reference, content_hash) select rubric_id, 2, title, reference, 'jc-v2' from rubric_versions where id = $1 returning id`, [v1]))
        .rows[0]!.id,
    );
    await db.execute(
      `insert into rubric_items (rubric_version_id, item_key, text, weight, position)
       select $2, item_key, case when item_key = 'cow-in-barn' then 'A black horse looks out of the open barn doors.' else text end, weight, position from rubric_items where rubric_version_id = $1`,
      [v1, v2],
    );
    await db.execute(`update labels set rubric_version_id = $1`, [v1]);
    await db.execute(`update grades set rubric_version_id = $1`, [v2]);
  });

  it('leaves out the labels of the reworded item, and says how many', async () => {
    const r = await judgeCompare(ctx.database, { run: 'jc', a: 'old', b: 'new', top: 2 });
    // Only the barn pairs (x1–x5) are human-labelled pairs of the wording the judges graded.
    expect(r.humanLabelledPairs).toBe(5);
    expect(r.units).toBe(3);
    expect(r.notes.join('\n')).toMatch(/^6 item label\(s\) or grade\(s\) left out: given against a rubric version whose text of the item differs/);
  });

  it('a judge graded against the old wording: its verdicts of the reworded item are left out too', async () => {
    // Judge old's grade of x2 goes back to version 1; the labels of x2 are on version 2 now.
    await ctx.database.execute(`update labels l set rubric_version_id = (select max(id) from rubric_versions) from answers a where a.id = l.answer_id and a.external_id = 'x2'`);
    await ctx.database.execute(
      `update grades g set rubric_version_id = (select min(id) from rubric_versions) from answers a, judges j where a.id = g.answer_id and j.id = g.judge_id and a.external_id = 'x2' and j.slug = 'old'`,
    );
    const r = await judgeCompare(ctx.database, { run: 'jc', a: 'old', b: 'new', top: 2 });
    // x2's cow-in-barn label is a pair again, but old's verdict of it was given against the old wording.
    expect(r.humanLabelledPairs).toBe(6);
    expect(r.dropped.byReason.find((d) => d.reason === 'aNoVerdict')?.count).toBe(1);
    expect(r.notes.join('\n')).toMatch(/^6 item label\(s\) or grade\(s\) left out/);
  });
});
