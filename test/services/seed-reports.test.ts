import { expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import {
  ablationTable,
  calibrationReport,
  describeThenSolveReport,
  effortTable,
  LEXICAL_BASELINE_NOTE,
  leaderboard,
  orientationTable,
} from '../../src/services/reports.ts';
import { seedExamples } from '../../src/services/seed.ts';
import { pageCalibration } from '../../src/services/web-calibration.ts';
import { describeDb, openTestDatabase, ENGINES } from '../helpers/db.ts';

/**
 * Issue 8: a freshly seeded database gives every report rows. The campaign data (rubrics/examples/runs/
 * synthetic-farmyard-campaign.jsonl) was written so each join is hit; the expected values below follow from that
 * file by hand (stated orientation, grid and piece count; run effort and tags; answer status).
 */

const gradeVerdicts = async (database: Database) =>
  (
    await database.execute(
      `select r.name as run, a.external_id as answer, g.status, g.f1, g.items
         from grades g join answers a on a.id = g.answer_id join runs r on r.id = a.run_id join judges j on j.id = g.judge_id
        where j.slug = 'lexical' order by r.name, a.external_id`,
    )
  ).rows.map((g) => ({ ...g, items: (g.items as Array<{ id: string; verdict: string }>).map((i) => `${i.id}:${i.verdict}`) }));

describeDb('reports over the freshly seeded examples', (ctx) => {
  it('grades with the lexical baseline and says so in every report', async () => {
    expect((await seedExamples(ctx.database)).seeded).toBe(true);
    const reports = await Promise.all([
      leaderboard(ctx.database),
      orientationTable(ctx.database),
      ablationTable(ctx.database),
      effortTable(ctx.database),
      describeThenSolveReport(ctx.database),
    ]);
    for (const r of reports) expect(r).toMatchObject({ judge: 'lexical', judgeBaseline: true, judgeNote: LEXICAL_BASELINE_NOTE });
    expect(LEXICAL_BASELINE_NOTE).toBe('lexical baseline judge — offline word overlap, not an LLM');
  });

  it('leaderboard: every campaign model has a description F1 and assembly neighbour/direct/proximity in the ~50 bucket', async () => {
    const lb = await leaderboard(ctx.database);
    const rows = lb.rows.filter((r) => r.sizeBucket === '~50' && !r.baseline);
    expect(rows.map((r) => r.model).sort()).toEqual(['example', 'model-a', 'model-b', 'model-c', 'model-d']);
    for (const m of ['model-a', 'model-b', 'model-d']) {
      const r = rows.find((x) => x.model === m)!;
      for (const k of ['f1', 'neighbour', 'direct', 'proximity'] as const) expect(r[k], `${m} ${k}`).not.toBeNull();
    }
    // model-c: one graded description (the high-effort one has no text), two scored assemblies.
    expect(rows.find((r) => r.model === 'model-c')).toMatchObject({ descriptions: 1, assemblies: 2 });
    // The thorough description beats the three-line one.
    expect(rows.find((r) => r.model === 'model-a')!.f1!).toBeGreaterThan(rows.find((r) => r.model === 'model-c')!.f1! + 0.3);
    expect(lb.rows.some((r) => r.baseline && r.sizeBucket === '~50')).toBe(true);
  });

  it('orientation: model-a states portrait once (wrong), model-c states nothing, the others are right', async () => {
    const { rows } = await orientationTable(ctx.database);
    const by = Object.fromEntries(rows.map((r) => [r.model, [r.landscapeCorrect, r.landscapeTotal, r.notStated]]));
    expect(by).toMatchObject({ 'model-a': [1, 2, 0], 'model-b': [2, 2, 0], 'model-c': [0, 1, 1], 'model-d': [1, 1, 0], example: [1, 1, 0] });
  });

  it('ablation: model-b tagged vs plain; the plain run states 48 pieces of 54', async () => {
    const { tag, rows } = await ablationTable(ctx.database);
    expect(tag).toBe('tagged');
    const b = rows.filter((r) => r.model === 'model-b');
    expect(b.map((r) => [r.condition, r.descriptions, r.assemblies])).toEqual([
      ['tagged', 1, 1],
      ['plain', 1, 1],
    ]);
    expect(b[0]!.pieceCountError).toBe(0);
    expect(b[1]!.pieceCountError).toBeCloseTo(6 / 54, 12);
    expect(b[0]!.f1!).toBeGreaterThan(b[1]!.f1!);
  });

  it('effort: low/high per model; model-c high has a no_answer description and a truncated assembly', async () => {
    const { rows } = await effortTable(ctx.database);
    const key = (r: { model: string; effort: string }) => `${r.model}/${r.effort}`;
    expect(rows.filter((r) => r.model.startsWith('model-')).map(key)).toEqual([
      'model-a/low',
      'model-a/high',
      'model-b/high',
      'model-c/low',
      'model-c/high',
      'model-d/medium',
    ]);
    expect(rows.find((r) => key(r) === 'model-c/high')).toMatchObject({ answers: 2, missing: 2, truncated: 1, descriptions: 0, medianOutputTokens: 2048 });
    expect(rows.find((r) => key(r) === 'model-a/high')).toMatchObject({ answers: 2, missing: 0, medianOutputTokens: (410 + 2350) / 2 });
  });

  it('describe-then-solve: the six campaign runs with a graded description pair up; the rest stay unpaired', async () => {
    const r = await describeThenSolveReport(ctx.database);
    // Unpaired: grid-examples' 6 assemblies (no description in that run) and model-c high (no_answer description).
    expect([r.paired, r.unpaired]).toEqual([6, 7]);
    expect(Object.keys(r.report!.byModel).sort()).toEqual(['model-a', 'model-b', 'model-c', 'model-d']);
    expect(r.report!.overall.n).toBe(6);
  });

  it('calibration: two annotators, the lexical judge, per model and per item; the humans disagree on 15 of 119 items', async () => {
    const r = await calibrationReport(ctx.database, { scale: 'verdict' });
    expect(r.humans).toEqual(['annotator-1', 'annotator-2']);
    // The lexical judge and the seed's baseline panel of three lexical judges (judges/panel-lexical.yaml).
    expect(r.judges).toEqual(['lexical', 'lexical-lenient', 'lexical-strict', 'panel-lexical']);
    expect(r.judgeNotes).toMatchObject({ lexical: LEXICAL_BASELINE_NOTE, 'lexical-lenient': LEXICAL_BASELINE_NOTE, 'lexical-strict': LEXICAL_BASELINE_NOTE });
    expect([r.units, r.answers]).toEqual([119, 7]);
    expect(r.majority.ties).toBe(15);
    const [pair] = Object.values(r.humanCeiling.pairs);
    expect(pair!.agreement).toBeCloseTo(104 / 119, 12);
    expect(r.humanCeiling.alpha.alpha).not.toBeNull();
    expect(r.humanCeiling.alpha.alpha!).toBeLessThan(1);
    const j = r.judgeReports.find((x) => x.rater === 'lexical')!;
    expect(Object.keys(j.byModel).sort()).toEqual(['example', 'model-a', 'model-b', 'model-c', 'model-d']);
    expect(j.byItem.length).toBe(17);
    const page = await pageCalibration(ctx.database, { scale: 'verdict' });
    expect(page.report?.units).toBe(119);
    expect(page.judgeNotes).toMatchObject({ lexical: LEXICAL_BASELINE_NOTE });
  });

  it('completes an interrupted seed: missing grades and labels are filled in with the same verdicts', async () => {
    const before = await gradeVerdicts(ctx.database);
    // As if the process died after the import: no grades of the campaign, no labels.
    await ctx.database.execute(`delete from grades where answer_id in (select a.id from answers a join runs r on r.id = a.run_id where r.name like 'campaign-%')`);
    await ctx.database.execute(`delete from labels`);
    // A seed that died there never recorded itself complete (seed-marker.ts).
    await ctx.database.execute(`delete from assay_meta where key = 'seed'`);
    const r = await seedExamples(ctx.database);
    // The six labelled campaign descriptions get the baseline panel's grade again too.
    expect(r).toMatchObject({ seeded: false, answers: 0, grades: 6, labels: 238, panelGrades: 6 });
    expect(await gradeVerdicts(ctx.database)).toEqual(before);
    expect(await seedExamples(ctx.database)).toMatchObject({ seeded: false, grades: 0, labels: 0, panelGrades: 0 });
  });
});

it('seed grading is deterministic: two fresh databases get the same verdicts and F1', async () => {
  const results = [];
  for (let i = 0; i < 2; i++) {
    const { database, drop } = await openTestDatabase(ENGINES[i % ENGINES.length]!);
    try {
      await seedExamples(database);
      results.push(await gradeVerdicts(database));
    } finally {
      await drop();
    }
  }
  expect(results[0]!.length).toBe(107);
  expect(results[0]!.every((g) => g.status === 'ok')).toBe(true);
  expect(results[1]).toEqual(results[0]);
}, 240_000);
