import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Context } from 'hono';
import { importPuzzles } from '../../src/services/puzzles.ts';
import { storeRubric } from '../../src/services/rubrics.ts';
import { scoreAndStoreAssembly } from '../../src/services/assemblies.ts';
import { ablationTable, effortTable, orientationTable } from '../../src/services/report-tables.ts';
import { describeThenSolveReport } from '../../src/services/report-analysis.ts';
import { leaderboardPage } from '../../src/web/pages/leaderboard.tsx';
import { stopThreads } from '../../src/threads/pool.ts';
import { farmyard } from '../judges/harness.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from '../api/app-fixture.ts';

/**
 * An answer stored with status error is a model call that failed: no answer at all, so never a score of 0
 * and never a graded description (a failure is a status, never a score). The leaderboard kept
 * an error assembly's stored score (0 for an empty text) in its means, counted only inside `assemblies`,
 * and the grades stored for error answers before 6bf3f2c (grading now skips them, reason answerError) in
 * its F1 and every other F1 report. Every report now leaves both out, and the leaderboard counts them per
 * row in `errors` (beside noAnswer; a describe-then-solve answer is one answer, counted once). no_answer
 * stays scored 0 (design §2.2: the model answered nothing, a wrong assembly): test/services/leaderboard-no-answer.
 *
 * Fixture, model er-m in run er-run, puzzle er-p (2×2, bucket ~4), rubric farmyard (no puzzle of its own):
 *   g1 assemble ok     'a b\nc d'  direct 1,   neighbour 1,   proximity 1
 *   g2 assemble ok     'a b\nd c'  direct 1/2, neighbour 1/4 (only a|b of a|b, c|d, a/c, b/d),
 *                                  proximity (E − d̄)/(E − 1) with E = 48/36 = 4/3, d̄ = (1+1+2+2)/4 = 3/2 → −1/2
 *   g3 assemble error  ''          scored invalid, every metric 0
 *   d1 describe ok     grade f1 0.8       (bucket 'no puzzle')
 *   d2 describe error  grade f1 0.2, stored before 6bf3f2c
 *   t1 describe-then-solve error, puzzle er-p: grade f1 0.6 and its grid 'a b\nc d' scored direct 1
 * Means by hand, without the error answers: ~4 direct (1 + 1/2)/2 = 0.75 (with g3 and t1 it was 2.5/4 = 0.625),
 * neighbour (1 + 1/4)/2 = 0.625, proximity (1 − 1/2)/2 = 0.25; F1 0.8 (with d2 and t1: 1.6/3).
 * errors: ~4 {g3, t1} = 2; no puzzle {d2} = 1; all {g3, d2, t1} = 3.
 */

afterAll(() => stopThreads());

describeDb('reports leave error answers out and the leaderboard counts them', (ctx) => {
  const api = useApi(ctx);

  beforeAll(async () => {
    const d = ctx.database;
    await importPuzzles(d, [{ path: 'p.jsonl', content: '{"id":"er-p","rows":2,"cols":2,"layout":[["a","b"],["c","d"]]}\n' }]);
    const { rubricId, versionId } = await d.db.transaction((tx) => storeRubric(tx, farmyard));
    const puzzleId = Number((await d.execute(`select id from puzzles where slug = 'er-p'`)).rows[0]!.id);
    const runId = Number((await d.execute(`insert into runs (name, model) values ('er-run', 'er-m') returning id`)).rows[0]!.id);
    const answer = async (ext: string, task: string, status: string, text: string | null, puzzle: number | null, rubric: number | null) =>
      Number(
        (await d.execute(`insert into answers (run_id, external_id, task, puzzle_id, rubric_id, text, status) values ($1, $2, $3, $4, $5, $6, $7) returning id`, [runId, ext, task, puzzle, rubric, text, status]))
          .rows[0]!.id,
      );
    const ids = {
      g1: await answer('g1', 'assemble', 'ok', 'a b\nc d', puzzleId, null),
      g2: await answer('g2', 'assemble', 'ok', 'a b\nd c', puzzleId, null),
      g3: await answer('g3', 'assemble', 'error', '', puzzleId, null),
      d1: await answer('d1', 'describe', 'ok', 'A red barn.', null, rubricId),
      d2: await answer('d2', 'describe', 'error', 'I will zoom in first: a red', null, rubricId),
      t1: await answer('t1', 'describe-then-solve', 'error', 'A barn.\n\na b\nc d', puzzleId, rubricId),
    };
    for (const id of [ids.g1, ids.g2, ids.g3, ids.t1]) await scoreAndStoreAssembly(d, id);
    const judgeId = Number((await d.execute(`insert into judges (slug, provider, model, config, config_hash) values ('er-judge', 'anthropic', 'claude-x', '{}', 'er-hash') returning id`)).rows[0]!.id);
    // Grades without claims: read under count as stored; under exclude they cannot be rescored (left out, and noted).
    const grade = (answerId: number, f1: number, orientation: string) =>
      d.execute(
        `insert into grades (answer_id, judge_id, rubric_version_id, status, completeness, correctness, f1, meta) values ($1, $2, $3, 'ok', $4, $4, $4, $5::jsonb)`,
        [answerId, judgeId, versionId, f1, JSON.stringify({ orientation: { stated: orientation, correct: orientation === 'landscape' } })],
      );
    await grade(ids.d1, 0.8, 'landscape');
    await grade(ids.d2, 0.2, 'portrait');
    await grade(ids.t1, 0.6, 'portrait');
  });

  const pick = (r: Record<string, unknown>) => ({
    descriptions: r.descriptions,
    f1: r.f1,
    assemblies: r.assemblies,
    noAnswer: r.noAnswer,
    errors: r.errors,
    direct: r.direct,
    neighbour: r.neighbour,
    proximity: r.proximity,
  });

  it('leaderboard: error answers out of the means, counted in errors (hand-computed)', async () => {
    const res = await api.call(api.keys.read, 'GET', '/api/reports/leaderboard');
    expect(res.status).toBe(200);
    const lb = (await res.json()) as { judge: string; rows: Array<Record<string, unknown>> };
    expect(lb.judge).toBe('er-judge');
    const row = (model: string, bucket: string) => lb.rows.find((r) => r.model === model && r.sizeBucket === bucket);
    expect(pick(row('er-m', '~4')!)).toEqual({ descriptions: 0, f1: null, assemblies: 2, noAnswer: 0, errors: 2, direct: 0.75, neighbour: 0.625, proximity: 0.25 });
    expect(pick(row('er-m', 'no puzzle')!)).toEqual({ descriptions: 1, f1: 0.8, assemblies: 0, noAnswer: 0, errors: 1, direct: null, neighbour: null, proximity: null });
    expect(pick(row('er-m', 'all')!)).toEqual({ descriptions: 1, f1: 0.8, assemblies: 2, noAnswer: 0, errors: 3, direct: 0.75, neighbour: 0.625, proximity: 0.25 });
    // The baseline of a bucket is over the answers in its means: 2 (a 2×2 grid: direct 1/4).
    expect(pick(row('random baseline', '~4')!)).toMatchObject({ assemblies: 2, errors: 0, direct: 0.25 });
  });

  it('leaderboard CSV carries errors after noAnswer; the page shows the column and a note', async () => {
    const res = await api.call(api.keys.read, 'GET', '/api/reports/leaderboard', { headers: { accept: 'text/csv' } });
    expect(res.status).toBe(200);
    const [header, ...lines] = (await res.text()).trim().split('\n');
    const cols = header!.split(',');
    expect(cols.slice(cols.indexOf('assemblies'), cols.indexOf('assemblies') + 4)).toEqual(['assemblies', 'noAnswer', 'errors', 'neighbour']);
    const all = lines.map((l) => l.split(',')).find((c) => c[0] === 'er-m' && c[1] === 'all')!;
    expect(all[cols.indexOf('errors')]).toBe('3');

    const html = String(await (await leaderboardPage({} as Context, new URLSearchParams(), ctx.database)).body());
    expect(html).toMatch(/>Errors</);
    expect(html).toMatch(/3 answers whose model call failed \(status error\) are left out of the means/);
  });

  it('the policy note counts no grade of an error answer (under exclude: 1 grade left out, d1, not 3)', async () => {
    const res = await api.call(api.keys.read, 'GET', '/api/reports/leaderboard?unverifiable=exclude');
    expect(res.status).toBe(200);
    const lb = (await res.json()) as { unverifiableNote: string | null; rows: Array<Record<string, unknown>> };
    expect(lb.unverifiableNote).toMatch(/^1 grade left out/);
    expect(pick(lb.rows.find((r) => r.model === 'er-m' && r.sizeBucket === 'all')!)).toMatchObject({ descriptions: 0, f1: null, errors: 3 });
  });

  it('ablation, effort, orientation and describe-then-solve leave grades and scores of error answers out', async () => {
    const ablation = await ablationTable(ctx.database);
    expect(ablation.rows.map((r) => [r.model, r.condition, r.descriptions, r.f1, r.assemblies, r.neighbour])).toEqual([['er-m', 'plain', 1, 0.8, 2, 0.625]]);
    const effort = await effortTable(ctx.database);
    // answers 6 (t1 once); missing: g3, d2, t1 (status error).
    expect(effort.rows.map((r) => [r.model, r.answers, r.missing, r.descriptions, r.f1, r.assemblies, r.neighbour])).toEqual([['er-m', 6, 3, 1, 0.8, 2, 0.625]]);
    // Farmyard's truth is landscape: d1 stated it (correct); d2's and t1's grades (portrait) are not read.
    const orientation = await orientationTable(ctx.database);
    expect(orientation.rows.map((r) => [r.model, r.correct, r.total])).toEqual([['er-m', 1, 1]]);
    // The only description of puzzle er-p in the run is t1, an error answer: no perception, so nothing pairs.
    const dts = await describeThenSolveReport(ctx.database);
    expect({ paired: dts.paired, unpaired: dts.unpaired, report: dts.report }).toEqual({ paired: 0, unpaired: 2, report: null });
  });
});
