import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Database } from '../../src/db/client.ts';
import type { Rubric } from '../../src/domain/rubric.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';

/**
 * The hand-checked case of test/analysis/judge-compare.test.ts stored in a database: run `jc`, answers
 * x1–x6 on the farmyard rubric (i1 = barn, i2 = cow-in-barn), judges `old` (A) and `new` (B), human labels.
 * Expected: 6 units, κA = 5/9, κB = 19/25, weighted 2/3 and 5/6, 3 flips (2 toward, 1 away), 3 dropped.
 * Judge `idle` is registered but has no grades of the run.
 */
type V = string;
const A: Record<string, [string, number | null, V, V]> = {
  x1: ['ok', 0.5, 'correct', 'correct'],
  x2: ['ok', 0.75, 'partial', 'correct'],
  x3: ['ok', 0.4, 'incorrect', 'incorrect'],
  x4: ['failed', null, '', ''],
  x5: ['ok', 0.3, 'correct', 'correct'],
  x6: ['ok', 0.1, 'missing', 'missing'],
};
const B: Record<string, [string, number | null, V, V]> = {
  x1: ['ok', 0.75, 'correct', 'missing'],
  x2: ['ok', 0.5, 'correct', 'correct'],
  x3: ['ok', 0.5, 'incorrect', 'missing'],
  x4: ['ok', 0.2, 'correct', 'correct'],
  x6: ['ok', 0.9, 'correct', 'correct'],
};
const HUMANS: Array<[string, string, string, string]> = [
  ['x1', 'barn', 'h1', 'correct'],
  ['x1', 'cow-in-barn', 'h1', 'missing'],
  ['x1', 'cow-in-barn', 'h2', 'missing'],
  ['x1', 'cow-in-barn', 'h3', 'correct'],
  ['x2', 'barn', 'h1', 'partial'],
  ['x2', 'cow-in-barn', 'h1', 'correct'],
  ['x3', 'barn', 'h1', 'incorrect'],
  ['x3', 'cow-in-barn', 'h1', 'missing'],
  ['x4', 'barn', 'h1', 'correct'],
  ['x4', 'barn', 'h2', 'partial'],
  ['x4', 'cow-in-barn', 'h1', 'correct'],
  ['x5', 'barn', 'h1', 'correct'],
];

export async function seedJudgeCompare(db: Database): Promise<void> {
  const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
  await importParsedRubrics(db, [rubric]);
  await importAnswersJsonl(db, {
    path: 'jc.jsonl',
    content: Object.keys(A)
      .map((id) => JSON.stringify({ id, run: 'jc', model: 'M', task: 'describe', rubric: rubric.id, text: `answer ${id}` }))
      .join('\n'),
  });
  for (const slug of ['old', 'new', 'idle']) {
    await db.execute(`insert into judges (slug, provider, model, config, config_hash) values ($1, 'lexical', 'lexical', '{}', $1)`, [slug]);
  }
  for (const [slug, grades] of [['old', A], ['new', B]] as const) {
    for (const [answer, [status, f1, i1, i2]] of Object.entries(grades)) {
      const items = status === 'ok' ? [{ id: 'barn', verdict: i1 }, { id: 'cow-in-barn', verdict: i2 }] : null;
      await db.execute(
        `insert into grades (answer_id, judge_id, rubric_version_id, status, f1, items)
         select a.id, (select id from judges where slug = $1), (select id from rubric_versions limit 1), $2, $3, $4::jsonb
           from answers a join runs r on r.id = a.run_id where r.name = 'jc' and a.external_id = $5`,
        [slug, status, f1, items === null ? null : JSON.stringify(items), answer],
      );
    }
  }
  for (const [answer, item, annotator, label] of HUMANS) {
    await db.execute(
      `insert into labels (answer_id, item_key, annotator, kind, label)
       select a.id, $2, $3, 'human', $4 from answers a join runs r on r.id = a.run_id where r.name = 'jc' and a.external_id = $1`,
      [answer, item, annotator, label],
    );
  }
}
