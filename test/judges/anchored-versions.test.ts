import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadJudge } from '../../src/judges/config.ts';
import { resolveJudgeExamples } from '../../src/services/grading/judge-examples.ts';
import { describeDb } from '../helpers/db.ts';
import { seedAnchored } from './anchored-fixture.ts';

/**
 * An anchored judge's example shows the rubric's latest version (what the judge grades against): a
 * person's verdict of an item given against a version that words it otherwise is a verdict of another
 * item, left out and said so (label-versions.ts), never shown under the new wording. People labelled
 * version 1; version 2 rewords cow-in-barn.
 */
describeDb('anchored judges and rubric versions', (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-anchored-v-'));
  const path = join(dir, 'anch-v.yaml');
  beforeAll(async () => {
    await seedAnchored(ctx.database);
    writeFileSync(path, `id: anch-v\nprovider: anthropic\nmodel: claude-sonnet-5\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\nexamples:\n  - { run: anch, answer: e1 }\n`);
    const db = ctx.database;
    const v1 = Number((await db.execute(`select id from rubric_versions order by id limit 1`)).rows[0]!.id);
    const v2 = Number(
      (await db.execute(`insert into rubric_versions (rubric_id, version, title, reference, content_hash) select rubric_id, 2, title, reference, 'anch-v2' from rubric_versions where id = $1 returning id`, [v1]))
        .rows[0]!.id,
    );
    await db.execute(
      `insert into rubric_items (rubric_version_id, item_key, text, weight, position)
       select $2, item_key, case when item_key = 'cow-in-barn' then 'A black horse looks out of the open barn doors.' else text end, weight, position from rubric_items where rubric_version_id = $1`,
      [v1, v2],
    );
    await db.execute(`update labels set rubric_version_id = $1`, [v1]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("leaves out a verdict given against another wording of the item, and says so", async () => {
    const judge = await resolveJudgeExamples(ctx.database, loadJudge(path));
    const [e1] = judge.examples!;
    expect(e1!.rubric.items.find((it) => it.id === 'cow-in-barn')!.text).toBe('A black horse looks out of the open barn doors.');
    // e1's cow-in-barn verdict was given against "a brown cow": not shown under "a black horse".
    expect(e1!.verdicts.map((v) => v.item)).toEqual(['barn']);
    expect(judge.examplesText).not.toContain('A black horse looks out of the open barn doors.): incorrect');
    expect(e1!.notes!.join('\n')).toMatch(/^1 item label\(s\) or grade\(s\) left out: given against a rubric version whose text of the item differs/);
  });

  it('an example whose every verdict was of another wording is refused, not shown empty', async () => {
    await ctx.database.execute(`delete from labels l using answers a where a.id = l.answer_id and a.external_id = 'e1' and l.item_key = 'barn'`);
    await expect(resolveJudgeExamples(ctx.database, loadJudge(path))).rejects.toThrow(/answer e1 of run anch: .*given against a rubric version whose text of the item differs/);
  });
});
