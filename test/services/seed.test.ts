import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parseGridTruth } from '../../src/domain/grid.ts';
import { scoreGrid } from '../../src/scoring/grid/index.ts';
import { listAnswers } from '../../src/services/answers.ts';
import { listAssemblyScores } from '../../src/services/assemblies.ts';
import { getPuzzle } from '../../src/services/puzzles.ts';
import { getRubric, listRubrics } from '../../src/services/rubrics.ts';
import { listRuns } from '../../src/services/runs.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { FIXTURES } from '../helpers/cli.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';

describeDb('seeding the bundled examples', (ctx) => {
  it('loads 101 rubrics, 2 puzzles, 10 runs, 121 answers, 13 assembly scores, 107 lexical grades and 238 labels', async () => {
    const r = await seedExamples(ctx.database);
    // 121 answers = 100 IIW + 1 farmyard-describe + 6 grid-examples + 14 campaign (7 runs × describe + assemble);
    // graded: every description with text (100 + 1 + 6; the no_answer one has none); labels: 7 answers × 17 items × 2;
    // the baseline panel grades the 7 labelled ones: 128 grade rows = 107 lexical + 7 × (panel + its strict and lenient members).
    expect(r).toEqual({ seeded: true, rubrics: 101, puzzles: 2, runs: 10, answers: 121, assemblyScores: 13, grades: 107, labels: 238, panelGrades: 7 });
    const counts = await rowCounts(ctx.database);
    expect(counts).toMatchObject({ rubrics: 101, rubric_versions: 101, puzzles: 2, runs: 10, answers: 121, assembly_scores: 13, grades: 128, labels: 238 });
  });

  it('is idempotent: a second seed writes nothing', async () => {
    const before = await rowCounts(ctx.database);
    expect(await seedExamples(ctx.database)).toMatchObject({ seeded: false, rubrics: 0, grades: 0, labels: 0, panelGrades: 0 });
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('keeps the runs apart: IIW-P5B describes, grid-examples assembles, farmyard-describe describes, the campaign does both', async () => {
    const { runs } = await listRuns(ctx.database);
    expect(runs.map((r) => [r.name, r.model, r.effort, r.tags, r.answers])).toEqual([
      ['IIW-P5B', 'IIW-P5B', null, [], 100],
      ['campaign-model-a-high', 'model-a', 'high', [], 2],
      ['campaign-model-a-low', 'model-a', 'low', [], 2],
      ['campaign-model-b-plain', 'model-b', 'high', [], 2],
      ['campaign-model-b-tagged', 'model-b', 'high', ['tagged'], 2],
      ['campaign-model-c-high', 'model-c', 'high', [], 2],
      ['campaign-model-c-low', 'model-c', 'low', [], 2],
      ['campaign-model-d', 'model-d', 'medium', [], 2],
      ['farmyard-describe', 'example', null, [], 1],
      ['grid-examples', 'example', null, [], 6],
    ]);
    const iiw = await listAnswers(ctx.database, { run: 'IIW-P5B', limit: 1 });
    expect(iiw.total).toBe(100);
    expect(iiw.answers[0]).toMatchObject({ externalId: 'aar_test_04600', task: 'describe', rubric: 'iiw-aar_test_04600', status: 'ok' });
    expect(iiw.answers[0]!.text).toMatch(/^A detailed close-up captures a bumble bee/);
    expect(iiw.answers[0]!.meta).toMatchObject({ humanSxsVsIiwHuman: { 'metrics/Comprehensiveness': 'IIW-P5B is marginally better' } });
  });

  it('turns each IIW object into a weighted item, the human description into the reference, with attribution', async () => {
    const v = await getRubric(ctx.database, 'iiw-aar_test_04600');
    // Boxes (y0,x0,y1,x1 on 0-999): full frame first → 1+2+1 = 4; bee (210×324) second → 1+2·0.261+0.5 ≈ 2;
    // sky (544×999) third → 1+2·0.738+0.333 ≈ 2.81 → 3.
    expect(v.items.map((i) => [i.id, i.weight])).toEqual([
      ['echinops-bannaticus-flowers', 4],
      ['bumble-bee', 2],
      ['sky', 3],
    ]);
    expect(v.reference).toMatch(/^A close-up outdoor shot shows an Echinops Bannaticus/);
    expect(v.source).toMatch(/Garg et al\..*CC-BY-4\.0.*aar_test_04600/);
    const { total } = await listRubrics(ctx.database, { limit: 1 });
    expect(total).toBe(101);
  });

  it('links the farmyard puzzle to its rubric and stores exactly what scoreGrid computes', async () => {
    const p = await getPuzzle(ctx.database, 'farmyard-6x9');
    expect([p.rubric, p.pieces, p.sizeBucket]).toEqual(['farmyard-54', 54, '~50']);
    const truth = parseGridTruth(JSON.parse(readFileSync(`${FIXTURES}grid-truth-6x9.json`, 'utf8')), 'truth');
    const { scores } = await listAssemblyScores(ctx.database, { run: 'grid-examples' });
    expect(scores.map((s) => [s.answer, s.status])).toEqual([
      ['farmyard-perfect', 'valid'],
      ['farmyard-shifted', expect.any(String)],
      ['farmyard-duplicates', 'repaired'],
      ['farmyard-random', 'valid'],
      ['farmyard-wrong-shape', 'invalid'],
      ['grid-4x4-mapping', 'valid'],
    ]);
    const files: Record<string, string> = {
      'farmyard-perfect': 'grid-answer-perfect.txt',
      'farmyard-shifted': 'grid-answer-shifted.txt',
      'farmyard-duplicates': 'grid-answer-duplicates.txt',
      'farmyard-random': 'grid-answer-random.json',
      'farmyard-wrong-shape': 'grid-answer-wrong-shape.txt',
    };
    for (const s of scores.filter((x) => x.puzzle === 'farmyard-6x9')) {
      const { answerId, answer, run, model, puzzle, sizeBucket, ...stored } = s;
      expect(stored).toEqual(scoreGrid(truth, readFileSync(`${FIXTURES}${files[answer]}`, 'utf8')));
    }
    expect(scores[0]).toMatchObject({ direct: 1, exactMatch: 1, neighbour: 1, adjacency: 1, proximity: 1 });
    expect(scores[4]).toMatchObject({ direct: 0, exactMatch: 0, neighbour: 0 });
  });
});

describeDb('seeding from two callers at once', (ctx) => {
  it('seeds exactly once', async () => {
    const results = await Promise.all([seedExamples(ctx.database), seedExamples(ctx.database)]);
    expect(results.map((r) => r.seeded).sort()).toEqual([false, true]);
    expect(await rowCounts(ctx.database)).toMatchObject({ rubrics: 101, answers: 121, assembly_scores: 13, grades: 128, labels: 238 });
  });
});
