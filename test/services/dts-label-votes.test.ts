import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Rubric } from '../../src/domain/rubric.ts';
import { importAnswersJsonl } from '../../src/services/answers.ts';
import { submitAssembly } from '../../src/services/assembly-submit.ts';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { describeThenSolveReport } from '../../src/services/report-analysis.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb } from '../helpers/db.ts';

/**
 * describe-then-solve by label: perception is the majority of the people's whole-answer pass/fail, one
 * vote per person — their newest, whether it was imported (item '') or given in the workspace or a
 * campaign (item answer:binary). Before, the two keys were two votes: a person who imported 'fail' and
 * later passed the description in the workspace voted both ways.
 * One description (run r, model A) and its perfect 4×4 assembly; people x, y, z.
 */
const rubric = parseYaml(readFileSync(`${FIXTURES}farmyard.rubric.yaml`, 'utf8')) as Rubric;
const truth4 = JSON.parse(readFileSync(`${FIXTURES}grid-truth-4x4.json`, 'utf8')) as { rows: number; cols: number; layout: string[][] };

describeDb('describe-then-solve by label: one vote per person', (ctx) => {
  const label = (annotator: string, item: string, value: string, at: string) =>
    ctx.database.execute(
      `insert into labels (answer_id, item_key, annotator, kind, label, created_at)
       select a.id, $2, $1, 'human', $3, $4::timestamptz from answers a where a.external_id = 'd1'`,
      [annotator, item, value, at],
    );

  beforeAll(async () => {
    const db = ctx.database;
    await importParsedRubrics(db, [rubric]);
    await importPuzzles(db, [{ path: 'p.jsonl', content: JSON.stringify({ id: 'p4', ...truth4, sizeBucket: '~16', rubric: 'farmyard-54' }) }]);
    await importAnswersJsonl(db, { path: 'a.jsonl', content: JSON.stringify({ id: 'd1', run: 'r', model: 'A', task: 'describe', puzzle: 'p4', text: 'A farmyard.' }) });
    await submitAssembly(db, { run: 'r', model: 'A', puzzle: 'p4', id: 'g1', answer: truth4.layout });
    // x imported 'fail', then passed it in the workspace; y and z disagree: x's newest decides, 2–1 pass.
    await label('x', '', 'fail', '2026-01-01T00:00:00Z');
    await label('x', 'answer:binary', 'pass', '2026-01-02T00:00:00Z');
    await label('y', 'answer:binary', 'pass', '2026-01-02T00:00:00Z');
    await label('z', 'answer:binary', 'fail', '2026-01-02T00:00:00Z');
  });

  it('the newest of each person’s pass/fail votes: 2 pass, 1 fail', async () => {
    const r = await describeThenSolveReport(ctx.database, { perception: 'label' });
    expect([r.paired, r.unpaired]).toEqual([1, 0]);
    expect(r.report!.overall.perception.successes).toBe(1);
  });

  it('a newer label that is no pass/fail (an imported rating) leaves the person’s pass/fail vote standing', async () => {
    await label('y', '', '3', '2026-01-03T00:00:00Z');
    const r = await describeThenSolveReport(ctx.database, { perception: 'label' });
    expect([r.paired, r.unpaired]).toEqual([1, 0]);
    expect(r.report!.overall.perception.successes).toBe(1);
  });
});
