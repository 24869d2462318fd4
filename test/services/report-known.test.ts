import { afterAll, beforeAll, expect, it } from 'vitest';
import { ablationTable, calibrationReport, describeThenSolveReport, effortTable, leaderboard, orientationTable } from '../../src/services/reports.ts';
import { stopThreads } from '../../src/threads/pool.ts';
import { describeDb } from '../helpers/db.ts';
import { fillKnownDatabase } from './report-known-fixture.ts';

/**
 * Report figures on a hand-made database (report-known-fixture.ts) against numbers worked out by hand
 * from the definitions (design §2): a judge failure is no 0, an ungraded answer is not counted, only the
 * newest grade of a judge counts (a failed newest grade makes the answer ungraded), two judges are read
 * apart, invalid assemblies score 0, filters combine, an empty group is nulls, ties sort by the next key.
 */

afterAll(() => stopThreads());

/** 95% Wilson interval, written out here from the formula (z = Φ⁻¹(0.975)). */
function wilsonRef(k: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = k / n;
  const c = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const h = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [k === 0 ? 0 : c - h, k === n ? 1 : c + h];
}

function expectProportion(p: { successes: number; trials: number; estimate: number | null; ci: [number, number] | null }, k: number, n: number) {
  expect([p.successes, p.trials]).toEqual([k, n]);
  if (n === 0) {
    expect(p.estimate).toBeNull();
    expect(p.ci).toBeNull();
    return;
  }
  expect(p.estimate).toBeCloseTo(k / n, 12);
  const [lo, hi] = wilsonRef(k, n);
  expect(p.ci![0]).toBeCloseTo(lo, 12);
  expect(p.ci![1]).toBeCloseTo(hi, 12);
}

const pick = <T extends { model: string; sizeBucket: string }>(rows: T[], model: string, bucket: string) => rows.find((r) => r.model === model && r.sizeBucket === bucket);

describeDb('report figures on a hand-made database', (ctx) => {
  beforeAll(async () => {
    await fillKnownDatabase(ctx.database);
  });

  it('leaderboard: means over the newest ok grade of the busiest judge, failures and ungraded left out, invalid assemblies as 0', async () => {
    const lb = await leaderboard(ctx.database);
    expect(lb.judge).toBe('j1');
    const cells = (model: string, bucket: string) => {
      const r = pick(lb.rows, model, bucket)!;
      return [r.descriptions, r.f1, r.assemblies, r.neighbour, r.direct, r.proximity];
    };
    const close = (got: (number | null)[], want: (number | null)[]) => {
      expect(got.length).toBe(want.length);
      got.forEach((g, i) => (want[i] === null ? expect(g).toBeNull() : expect(g).toBeCloseTo(want[i]!, 12)));
    };
    // m1 ~4: d1 0.8 and d2's newer 0.6 (d6's newest grade failed); s1 scored, s2 not.
    close(cells('m1', '~4'), [2, 0.7, 1, 0.5, 0.25, 0.1]);
    // m1 ~9: d5 0.4 (d3 failed, d4 ungraded); s3 invalid: 0.
    close(cells('m1', '~9'), [1, 0.4, 1, 0, 0, 0]);
    close(cells('m1', 'all'), [3, 0.6, 2, 0.25, 0.125, 0.05]);
    close(cells('m2', '~4'), [1, 1, 1, 1, 1, 1]);
    // u1 (describe-then-solve) is a description and an assembly.
    close(cells('m2', '~9'), [2, 0.4, 1, 0.9, 0.5, 0.4]);
    close(cells('m2', 'all'), [3, 0.6, 2, 0.95, 0.75, 0.7]);
    // Baselines (design §2.2): 2×2 direct 1/4, neighbour 1/6; 3×3 direct 1/9, neighbour 1/12; proximity 0.
    const base = (bucket: string) => lb.rows.find((r) => r.baseline && r.sizeBucket === bucket)!;
    close([base('~4').assemblies, base('~4').direct, base('~4').neighbour, base('~4').proximity], [2, 1 / 4, 1 / 6, 0]);
    close([base('~9').assemblies, base('~9').direct, base('~9').neighbour, base('~9').proximity], [2, 1 / 9, 1 / 12, 0]);
    close([base('all').assemblies, base('all').direct, base('all').neighbour], [4, (2 / 4 + 2 / 9) / 4, (2 / 6 + 2 / 12) / 4]);
    // Order: buckets ~4, ~9, all; in a bucket by F1, a tie (0.4 = 0.4 in ~9, 0.6 = 0.6 in "all") by neighbour.
    expect(lb.rows.map((r) => `${r.sizeBucket} ${r.model}`)).toEqual([
      '~4 m2', '~4 m1', '~4 random baseline', '~9 m2', '~9 m1', '~9 random baseline', 'all m2', 'all m1', 'all random baseline',
    ]);
    // A one-answer cell has a degenerate interval at its value, not a wider one.
    expect([pick(lb.rows, 'm1', '~9')!.f1Low, pick(lb.rows, 'm1', '~9')!.f1High]).toEqual([0.4, 0.4]);
  });

  it('leaderboard: another judge, and filters combined, down to an empty group', async () => {
    const j2 = await leaderboard(ctx.database, { judge: 'j2' });
    expect(j2.judge).toBe('j2');
    expect(pick(j2.rows, 'm2', '~4')).toMatchObject({ descriptions: 1, f1: 0 });
    expect(pick(j2.rows, 'm1', '~4')).toMatchObject({ descriptions: 0, f1: null, f1Low: null, f1High: null, assemblies: 1 });
    const f = await leaderboard(ctx.database, { model: 'm1', rubric: 'rb' });
    expect(f.rows.filter((r) => !r.baseline).map((r) => [r.model, r.sizeBucket, r.descriptions, r.f1, r.assemblies, r.neighbour])).toEqual([
      ['m1', '~9', 1, 0.4, 1, 0],
      ['m1', 'all', 1, 0.4, 1, 0],
    ]);
    const empty = await leaderboard(ctx.database, { model: 'm1', rubric: 'rb', judge: 'j2' });
    expect(empty.rows.filter((r) => !r.baseline).map((r) => [r.sizeBucket, r.descriptions, r.f1, r.assemblies])).toEqual([
      ['~9', 0, null, 1],
      ['all', 0, null, 1],
    ]);
    const none = await leaderboard(ctx.database, { model: 'm2', rubric: 'rb', run: 'run-m1' });
    expect(none.rows).toEqual([]);
  });

  it('describe-then-solve: pairs, P(A✓|P✓) and the rest with Wilson intervals', async () => {
    const r = await describeThenSolveReport(ctx.database);
    // s1's run holds two graded descriptions of pa (d1 0.8, d2 0.6; d6's newest grade failed): ambiguous, left out.
    expect([r.judge, r.paired, r.unpaired, r.ambiguous]).toEqual(['j1', 3, 1, 1]);
    const g = r.report!;
    // s3–d5 (P✗ A✗: d3 failed and is skipped), t1–e1 (P✓ A✓), u1–u1 itself (P✗ A✓).
    expect(g.overall.n).toBe(3);
    expectProportion(g.overall.perception, 1, 3);
    expectProportion(g.overall.answerGivenPerception, 1, 1);
    expectProportion(g.overall.answerGivenNoPerception, 1, 2);
    expectProportion(g.overall.answer, 2, 3);
    expect(g.overall.identity.holds).toBe(true);
    expectProportion(g.byModel.m1!.perception, 0, 1);
    expectProportion(g.byModel.m1!.answerGivenPerception, 0, 0);
    expectProportion(g.byModel.m1!.answerGivenNoPerception, 0, 1);
    expectProportion(g.byModel.m2!.answerGivenNoPerception, 1, 1);
    expectProportion(g.byModel.m2!.answer, 2, 2);
    expectProportion(g.bySlice['~4']!.answerGivenNoPerception, 0, 0);
    expectProportion(g.bySlice['~9']!.perception, 0, 2);
    expectProportion(g.bySlice['~9']!.answerGivenNoPerception, 1, 2);
    const f = await describeThenSolveReport(ctx.database, { model: 'm1', rubric: 'rb' });
    expect([f.paired, f.report!.overall.n]).toEqual([1, 1]);
    expectProportion(f.report!.overall.perception, 0, 1);
    expectProportion(f.report!.overall.answerGivenPerception, 0, 0);
    // A stricter τ on the description side: e1 (1.0) still passes at 0.8, nothing else; t1 (neighbour 1) alone ≥ 0.95.
    const strict = await describeThenSolveReport(ctx.database, { perceptionThreshold: 0.8, answerThreshold: 0.95 });
    expectProportion(strict.report!.overall.perception, 1, 3);
    expectProportion(strict.report!.overall.answerGivenPerception, 1, 1);
    expectProportion(strict.report!.overall.answer, 1, 3);
  });

  it('calibration: the newest ok grade per answer, failures no label, ties left out of the majority', async () => {
    const c = await calibrationReport(ctx.database, { scale: 'verdict', judge: 'j1' });
    expect([c.units, c.answers, c.humans, c.judges]).toEqual([6, 4, ['h1', 'h2'], ['j1']]);
    expect(c.majority).toMatchObject({ units: 4, ties: 1, singleRater: 3 });
    const j = c.judgeReports[0]!;
    expect(j.units).toBe(4);
    expect([j.vsMajority.n, j.vsMajority.agreement]).toEqual([2, 1]);
    expect([j.vsHumans.h1!.n, j.vsHumans.h1!.agreement]).toEqual([3, 1]);
    expect([j.vsHumans.h2!.n, j.vsHumans.h2!.agreement]).toEqual([2, 0.5]);
    // po = 1/2, pe = 1/4: κ = 1/3.
    expect(j.vsHumans.h2!.kappa!.kappa).toBeCloseTo(1 / 3, 12);
    const hh = c.humanCeiling.pairs['h1 ~ h2']!;
    expect([hh.n, hh.agreement]).toEqual([2, 0.5]);
    expect(hh.kappa!.kappa).toBeCloseTo(1 / 3, 12);
  });

  it('effort, orientation and ablation tables count each answer once', async () => {
    const e = await effortTable(ctx.database);
    const row = (m: string) => e.rows.find((r) => r.model === m)!;
    expect(row('m1')).toMatchObject({ effort: 'low', answers: 9, missing: 1, descriptions: 3, assemblies: 2, medianOutputTokens: 100 });
    expect(row('m1').f1).toBeCloseTo(0.6, 12);
    // u1 is one answer (a description and an assembly): four answers, median of 40, 1000, 2000, 3000.
    expect(row('m2')).toMatchObject({ effort: 'high', answers: 4, missing: 0, descriptions: 3, assemblies: 2, medianOutputTokens: 1500 });
    const o = await orientationTable(ctx.database);
    expect(o.rows.map((r) => [r.model, r.landscapeCorrect, r.landscapeTotal, r.portraitCorrect, r.portraitTotal, r.notStated, r.correct, r.total])).toEqual([
      ['m1', 2, 2, 0, 1, 1, 2, 3],
      ['m2', 0, 1, 0, 2, 3, 0, 3],
    ]);
    const a = await ablationTable(ctx.database);
    expect(a.rows.map((r) => [r.model, r.condition, r.descriptions, r.assemblies, r.neighbour])).toEqual([
      ['m1', 'plain', 3, 2, 0.25],
      ['m2', 'plain', 3, 2, 0.95],
    ]);
  });

  // Last: it adds rows the tests above do not expect.
  it('describe-then-solve over binary labels: one vote per person (their newest), a tie unpaired; an assembly with no description unpaired', async () => {
    const d = ctx.database;
    const ids = (await d.execute(`select external_id, id from answers`)).rows;
    const id = (x: string) => Number(ids.find((r) => r.external_id === x)!.id);
    const label = (a: string, item: string, who: string, value: string, at: string) =>
      d.execute(`insert into labels (answer_id, item_key, annotator, kind, label, created_at) values ($1, $2, $3, 'human', $4, $5)`, [id(a), item, who, value, at]);
    // d1: h1 said fail, then pass (another key, one vote: pass); h2 fail: a tie, no majority.
    await label('d1', '', 'h1', 'fail', '2026-01-01T00:00:00Z');
    await label('d1', 'answer:binary', 'h1', 'pass', '2026-01-02T00:00:00Z');
    await label('d1', '', 'h2', 'fail', '2026-01-01T00:00:00Z');
    await label('e1', 'answer:binary', 'h1', 'yes', '2026-01-01T00:00:00Z');
    await label('d5', '', 'h1', 'no', '2026-01-01T00:00:00Z');
    // A scored assembly of a puzzle its run never described.
    const pc = Number((await d.execute(`insert into puzzles (slug, rows, cols, layout, size_bucket) values ('pc', 2, 2, '[["a","b"],["c","d"]]', '~4') returning id`)).rows[0]!.id);
    const run = Number((await d.execute(`select id from runs where name = 'run-m1'`)).rows[0]!.id);
    const s4 = Number((await d.execute(`insert into answers (run_id, external_id, task, puzzle_id, text) values ($1, 's4', 'assemble', $2, 'x') returning id`, [run, pc])).rows[0]!.id);
    await d.execute(`insert into assembly_scores (answer_id, status, direct, exact_match, neighbour, adjacency, proximity, by_position) values ($1, 'valid', 1, 1, 1, 1, 1, '{}')`, [s4]);
    const r = await describeThenSolveReport(d, { perception: 'label' });
    // t1–e1 (P✓ A✓), s3–d5 (P✗ A✗); s1 (d1 tied, no other labelled pa description), u1 (its own description unlabelled), s4 unpaired.
    expect([r.paired, r.unpaired]).toEqual([2, 3]);
    expectProportion(r.report!.overall.perception, 1, 2);
    expectProportion(r.report!.overall.answerGivenPerception, 1, 1);
    expectProportion(r.report!.overall.answerGivenNoPerception, 0, 1);
    // By F1: s1 ambiguous (d1, d2), s4 without a description.
    const f1 = await describeThenSolveReport(d);
    expect([f1.paired, f1.unpaired, f1.ambiguous]).toEqual([3, 2, 1]);
  });
});

describeDb('the leaderboard count of answers that name no model', (ctx) => {
  it('counts those in the report scope only', async () => {
    const d = ctx.database;
    const ids = await fillKnownDatabase(d);
    const run = Number((await d.execute(`insert into runs (name, model) values ('adhoc', 'unknown') returning id`)).rows[0]!.id);
    await d.execute(`insert into answers (run_id, external_id, task, rubric_id, text) values ($1, 'x1', 'describe', $2, 'a barn')`, [run, ids.rubric.ra]);
    const counts = [];
    for (const f of [{}, { rubric: 'ra' }, { rubric: 'rb' }, { run: 'run-m1' }, { model: 'm1' }, { run: 'adhoc' }]) counts.push((await leaderboard(d, f)).unattributed);
    expect(counts).toEqual([1, 1, 0, 0, 0, 1]);
  });
});
