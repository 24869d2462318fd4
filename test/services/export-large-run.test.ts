import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportRun } from '../../src/services/export/write-export.ts';
import { describeDb, ENGINES } from '../helpers/db.ts';

/**
 * `assay export` of a run of 70,000 answers, each with a grade, one in ten with a label and an assembly
 * score, 1,000 with a rubric of their own: every row is in the files. Before, the export passed the answers'
 * ids as one query parameter each (to read the grades, labels and scores), past the 65,535 parameters a
 * statement may have, and failed. (The parameters came from the answers, not the rows read: one label in
 * ten keeps the test quick and fails the same way.)
 */

const N = 70_000;
const RUBRICS = 1_000;
const dir = mkdtempSync(join(tmpdir(), 'assay-export-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lines = (f: string) => readFileSync(f, 'utf8').split('\n').filter(Boolean);

describeDb('export of a large run', (ctx) => {
  beforeAll(async () => {
    const x = (sql: string) => ctx.database.execute(sql);
    await x(`insert into runs (name, model) values ('big-run', 'big-model')`);
    await x(`insert into rubrics (slug, title) select 'big-' || i, 'Big ' || i from generate_series(1, ${RUBRICS}) i`);
    await x(`insert into rubric_versions (rubric_id, version, title, reference, content_hash) select id, 1, slug, 'ref ' || slug, 'hash-' || slug from rubrics where slug like 'big-%'`);
    await x(`insert into rubric_items (rubric_version_id, item_key, text, weight, position) select rv.id, 'a', 'thing', 1, 0 from rubric_versions rv join rubrics r on r.id = rv.rubric_id where r.slug like 'big-%'`);
    await x(`insert into judges (slug, provider, model, config, config_hash) values ('big-judge', 'p', 'pm', '{}', 'big-judge-hash')`);
    await x(`insert into answers (run_id, external_id, task, text, rubric_id)
      select r.id, 'a' || i, 'describe', 'answer ' || i, case when i <= ${RUBRICS} then (select id from rubrics where slug = 'big-' || i) end
      from runs r, generate_series(1, ${N}) i where r.name = 'big-run'`);
    await x(`insert into grades (answer_id, judge_id, status, f1) select a.id, j.id, 'ok', 0.5 from answers a, judges j where j.slug = 'big-judge'`);
    await x(`insert into labels (answer_id, annotator, label) select id, 'big-annotator', 'correct' from answers where id % 10 = 0`);
    await x(`insert into assembly_scores (answer_id, status, direct, exact_match, by_position) select id, 'valid', 1, 1, '{"corner":1,"edge":1,"interior":1}' from answers where id % 10 = 0`);
  }, 120_000);

  it(`exports every row of a run of ${N.toLocaleString('en')} answers`, async () => {
    const out = join(dir, `${ENGINES[0]}-${Math.random().toString(36).slice(2)}`);
    const r = await exportRun(ctx.database, { run: 'big-run', out, format: 'jsonl' });
    expect(r.rows).toMatchObject({ answers: N, grades: N, labels: N / 10, assembly_scores: N / 10 });
    const answers = lines(join(out, 'answers.jsonl')).map((l) => (JSON.parse(l) as { id: string }).id);
    expect(new Set(answers).size).toBe(N);
    expect(answers[N - 1]).toBe(`a${N}`);
    expect(lines(join(out, 'grades.jsonl'))).toHaveLength(N);
    // Each answer's own rubric, with its item, and the judge.
    const rubrics = lines(join(out, 'rubrics.jsonl')).map((l) => JSON.parse(l) as { rubric: { id: string; items: unknown[] } });
    expect(rubrics).toHaveLength(RUBRICS);
    expect(rubrics.every((x) => x.rubric.items.length === 1)).toBe(true);
    expect((JSON.parse(readFileSync(join(out, 'judges.json'), 'utf8')) as unknown[]).length).toBe(1);
  }, 120_000);
});
