import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { labels } from '../../src/db/schema.ts';
import { RubricSchema, type Rubric } from '../../src/domain/rubric.ts';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { FIXTURES, runCli } from '../helpers/cli.ts';
import { cliDatabaseEnv, ENGINES } from '../helpers/db.ts';

/**
 * `assay calibrate --run R --judge J --rubric F`: the roll-up weighs by F, so F must be the rubric the
 * run's grades by J were graded under, weight for weight, or the roll-up is not those grades'
 * completeness. Expected values are computed here from the rubric file and the stored verdicts:
 * the judge's weighted roll-up of farm-1 is Σ w·points / Σ w over every item, i.e. the grade's own
 * completeness (every item is labelled by both people); the people's from the fixture's verdicts, by
 * hand: barn 2·1 + farmer 2·1 + tractor-green 1·0 + fence 1·1 + pasture-animals 2·½ + sheep 1·½ +
 * pigs-mud 2·½ + pond 2·½ + sky 1·1 + hills-windmill 1·½ + layout 2·1 + style ½·1 = 12.5 (the rest 0),
 * over Σ w = 21.5: 25/43 (unweighted, 8.5/17 = 1/2).
 */
const POINTS: Record<string, number> = { correct: 1, partial: 0.5, incorrect: 0, missing: 0 };

for (const engine of ENGINES) describe(`assay calibrate --run --rubric: the rubric the run was graded under [${engine}]`, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'assay-calib-run-rubric-'));
  let env: NodeJS.ProcessEnv = {};
  let drop: (() => Promise<void>) | undefined;
  const FILE = join(FIXTURES, 'farmyard.rubric.yaml');
  let rubric: Rubric;
  let completeness = 0;
  let human = 0;
  const write = (name: string, r: Rubric): string => {
    const p = join(tmp, name);
    writeFileSync(p, stringify(r));
    return p;
  };
  // farmyard-54 with the barn's weight 2 → 5: another rubric in all but name.
  const reweighed = (): Rubric => ({ ...rubric, items: rubric.items.map((it) => (it.id === 'barn' ? { ...it, weight: 5 } : it)) });

  beforeAll(async () => {
    const db = await cliDatabaseEnv(engine, tmp);
    env = db.env;
    drop = db.drop;
    rubric = RubricSchema.parse(parseYaml(readFileSync(FILE, 'utf8')));
    const verdicts = JSON.parse(readFileSync(join(FIXTURES, 'farmyard.verdicts.json'), 'utf8')) as { items: { id: string; verdict: string }[] };
    const people = new Map(verdicts.items.map((i) => [i.id, i.verdict]));
    const database = env.DATABASE_URL ? await openDatabase({ url: env.DATABASE_URL }) : await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
    try {
      await migrate(database);
      const g = await gradeAnswer(database, { judge: 'lexical', rubric, answer: { text: readFileSync(join(FIXTURES, 'farmyard.answer.txt'), 'utf8'), run: 'rr', externalId: 'farm-1' } });
      expect(g.status).toBe('ok');
      completeness = g.completeness!;
      for (const annotator of ['ann', 'bob']) {
        await database.db.insert(labels).values(rubric.items.map((it) => ({ answerId: g.answerId, itemKey: it.id, annotator, kind: 'human' as const, label: people.get(it.id) ?? 'missing' })));
      }
      const total = rubric.items.reduce((s, it) => s + it.weight, 0);
      human = rubric.items.reduce((s, it) => s + it.weight * POINTS[people.get(it.id) ?? 'missing']!, 0) / total;
      // The rubric edited after the run was graded: version 2 weighs the barn 5, the grade stays of version 1.
      await importParsedRubrics(database, [reweighed()]);
    } finally {
      await database.close();
    }
  }, 300_000);
  afterAll(async () => {
    await drop?.();
    rmSync(tmp, { recursive: true, force: true });
  });

  const calibrate = (...args: string[]) => runCli(['calibrate', '--run', 'rr', '--judge', 'lexical', '--scale', 'verdict', ...args, '--json'], { env });

  it('the file the run was graded under: the judge roll-up is the stored completeness', () => {
    const r = calibrate('--rubric', FILE);
    expect(r.code, r.stderr).toBe(0);
    const a = r.json().judgeReports[0].answers;
    expect(a.weighted).toBe(true);
    expect(a.answers).toHaveLength(1);
    expect(a.answers[0].judge).toBeCloseTo(completeness, 12);
    expect(human).toBeCloseTo(25 / 43, 12);
    expect(a.answers[0].human).toBeCloseTo(25 / 43, 12);
    expect(a.bias).toBeCloseTo(completeness - human, 12);
  }, 300_000);

  it('a file weighing otherwise than the version graded under (here the newest, 2): refused', () => {
    const r = calibrate('--rubric', write('v2.yaml', reweighed()));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/rubric 'farmyard-54' item 'barn' weighs 5 here but 2 in version 1, which lexical's grades of run 'rr' were graded under/);
  }, 300_000);

  it('a file of another rubric than the answers: refused', () => {
    const r = calibrate('--rubric', write('other.yaml', { ...rubric, id: 'farmyard-copy' }));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/answer 'farm-1' is of rubric 'farmyard-54', but --rubric gives farmyard-copy only/);
  }, 300_000);
});
