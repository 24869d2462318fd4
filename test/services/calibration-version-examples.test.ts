import { beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { calibrationReport } from '../../src/services/report-analysis.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * An anchored judge's grade of its own example answer is out of the calibration (example-exclusion.ts), so
 * it must not decide which wording of an item the answer's other labels are compared under
 * (label-versions.ts settleVersions), nor be counted among the rows left out for their version.
 * Rubric rv: v1 words item sky "a blue sky", v2 "a grey sky". Run ver, answers e1 and a2. People h1 and h2
 * label sky on both answers against v1: correct, correct. Judge plain grades both against v1 (correct);
 * judge anch grades e1 against v2 (incorrect), and was shown e1 as an example.
 * By hand: anch's e1 grade is dropped, so every unit is worded as v1: 2 units (e1/sky, a2/sky), h1 ~ h2
 * over 2, plain over 2, nothing left out for its version. Read with anch's v2 grade as e1's reference
 * wording, h1's, h2's and plain's e1 rows were left out (3 rows) and the report had 1 unit.
 */
const one = async (d: Database, sql: string, params: unknown[] = []): Promise<number> => Number((await d.execute(`${sql} returning id`, params)).rows[0]!.id);

async function fill(d: Database): Promise<void> {
  const rubric = await one(d, `insert into rubrics (slug, title) values ('rv', 'RV')`);
  const version = async (n: number, text: string) => {
    const v = await one(d, `insert into rubric_versions (rubric_id, version, title, reference, content_hash) values ($1, $2, 'RV', 'r', $3)`, [rubric, n, `rv${n}`]);
    await d.execute(`insert into rubric_items (rubric_version_id, item_key, text, weight, position) values ($1, 'sky', $2, 1, 0)`, [v, text]);
    return v;
  };
  const v1 = await version(1, 'a blue sky');
  const v2 = await version(2, 'a grey sky');
  const run = await one(d, `insert into runs (name, model) values ('ver', 'M')`);
  const answer = (id: string) => one(d, `insert into answers (run_id, external_id, task, rubric_id, text, status) values ($1, $2, 'describe', $3, $4, 'ok')`, [run, id, rubric, `answer ${id}`]);
  const e1 = await answer('e1');
  const a2 = await answer('a2');
  const judge = (slug: string, config: object) => one(d, `insert into judges (slug, provider, model, config, config_hash) values ($1, 'anthropic', 'm', $2::jsonb, $1)`, [slug, JSON.stringify(config)]);
  const plain = await judge('plain', { id: 'plain' });
  const anch = await judge('anch', { id: 'anch', resolvedExamples: [{ answerId: 0, run: 'ver', answer: 'e1', verdicts: [] }] });
  const grade = (a: number, j: number, v: number, verdict: string) =>
    d.execute(`insert into grades (answer_id, judge_id, rubric_version_id, status, items, meta) values ($1, $2, $3, 'ok', $4::jsonb, '{}'::jsonb)`, [a, j, v, JSON.stringify([{ id: 'sky', verdict }])]);
  await grade(e1, plain, v1, 'correct');
  await grade(a2, plain, v1, 'correct');
  await grade(e1, anch, v2, 'incorrect');
  for (const a of [e1, a2]) {
    for (const h of ['h1', 'h2']) await d.execute(`insert into labels (answer_id, item_key, annotator, kind, label, rubric_version_id) values ($1, 'sky', $2, 'human', 'correct', $3)`, [a, h, v1]);
  }
}

describeDb('calibration: an anchored judge\'s example grade does not settle the item wording of the answer\'s other labels', (ctx) => {
  beforeAll(() => fill(ctx.database));

  it('every unit stands under v1; nothing is said left out for its version', async () => {
    const r = await calibrationReport(ctx.database, { run: 'ver', scale: 'verdict' });
    expect(r.excludedExamples).toEqual({ anch: 1 });
    expect(r.units).toBe(2);
    expect(Object.values(r.humanCeiling.pairs).map((p) => p.n)).toEqual([2]);
    expect(r.judgeReports.find((j) => j.rater === 'plain')!.vsMajority.n).toBe(2);
    expect(r.notes.filter((n) => /rubric version/.test(n))).toEqual([]);
  });
});
