import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { labels } from '../../src/db/schema.ts';
import { RubricSchema } from '../../src/domain/rubric.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { FIXTURES, runCli } from '../helpers/cli.ts';

/**
 * `assay calibrate --run R --judge J`: the judge's stored grades and the run's human labels come from the
 * database. The expected agreement is recomputed here from the stored verdicts, independently of the
 * calibration code.
 */
describe('assay calibrate --run (stored grades and labels)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'assay-calib-run-'));
  const env = { DATABASE_URL: '', ASSAY_DATA_DIR: join(tmp, 'data') };
  let expectedAgreement = 0;
  let items = 0;

  beforeAll(async () => {
    const rubric = RubricSchema.parse(parseYaml(readFileSync(join(FIXTURES, 'farmyard.rubric.yaml'), 'utf8')));
    const human = JSON.parse(readFileSync(join(FIXTURES, 'farmyard.verdicts.json'), 'utf8')) as { items: { id: string; verdict: string }[] };
    const humanVerdict = new Map(human.items.map((i) => [i.id, i.verdict]));
    const answer = readFileSync(join(FIXTURES, 'farmyard.answer.txt'), 'utf8');
    const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR });
    try {
      await migrate(database);
      const g = await gradeAnswer(database, { judge: 'lexical', rubric, answer: { text: answer, run: 'calib-run', externalId: 'farm-1' } });
      expect(g.status).toBe('ok');
      // Two annotators who agree on every item, so the human majority is their shared verdict.
      for (const annotator of ['ann', 'bob']) {
        await database.db.insert(labels).values(
          rubric.items.map((it) => ({ answerId: g.answerId, itemKey: it.id, annotator, kind: 'human' as const, label: humanVerdict.get(it.id) ?? 'missing' })),
        );
      }
      items = rubric.items.length;
      const judged = new Map((g.items ?? []).map((it: { id: string; verdict: string }) => [it.id, it.verdict]));
      const same = rubric.items.filter((it) => judged.get(it.id) === (humanVerdict.get(it.id) ?? 'missing')).length;
      expectedAgreement = same / items;
    } finally {
      await database.close();
    }
  }, 300_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('reads the judge and both annotators from the database', () => {
    const r = runCli(['calibrate', '--run', 'calib-run', '--judge', 'lexical', '--scale', 'verdict', '--json'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = r.json();
    expect(report.humans).toEqual(['ann', 'bob']);
    expect(report.judges).toEqual(['lexical']);
    expect(report.units).toBe(items);
    const judge = report.judgeReports[0];
    expect(judge.rater).toBe('lexical');
    expect(judge.vsMajority.n).toBe(items);
    expect(judge.vsMajority.agreement).toBeCloseTo(expectedAgreement, 12);
    expect(report.humanCeiling.alpha.alpha).toBe(1);
  }, 300_000);

  it('needs --judge with --run, and names an unknown run (exit 2)', () => {
    const noJudge = runCli(['calibrate', '--run', 'calib-run', '--scale', 'verdict'], { env });
    expect(noJudge.code).toBe(2);
    expect(noJudge.stderr).toMatch(/--run needs --judge/);
    const unknown = runCli(['calibrate', '--run', 'nope', '--judge', 'lexical', '--scale', 'verdict'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toMatch(/run 'nope' not found/);
  }, 300_000);
});
