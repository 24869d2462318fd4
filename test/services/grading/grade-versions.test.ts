import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { gradeUpserter } from '../../../src/db/grade-store.ts';
import { loadJudge } from '../../../src/judges/config.ts';
import { calibrationLabels } from '../../../src/services/grading/calibration-labels.ts';
import { gradesOfAnswer } from '../../../src/services/grading/grade-detail.ts';
import { answersNeedingGrade } from '../../../src/services/grading/needs-grading.ts';
import { createGradingSession, type GradingSession } from '../../../src/services/grading/session.ts';
import { judgeCompare } from '../../../src/services/judge-compare.ts';
import { chooseJudge, descriptionRows } from '../../../src/services/report-data.ts';
import { leaderboard } from '../../../src/services/reports.ts';
import { storeRubric } from '../../../src/services/rubrics.ts';
import type { GradeDetail } from '../../../src/services/grading/grade-detail.ts';
import { describeDb } from '../../helpers/db.ts';
import { count, seedRun } from '../../jobs/helpers.ts';
import { farmyard } from '../../judges/harness.ts';

/**
 * Versioned grades (migration 0006): a changed rubric or a changed judge configuration adds a grade and
 * keeps the earlier one; the same configuration, rubric version and answer is one grade (a rerun
 * replaces it in place). Every read of "the grade" takes the newest: the reports, calibration and judge
 * compare count each answer once. The lexical judge: offline and deterministic.
 */
describeDb('versioned grades', (ctx) => {
  const dir = mkdtempSync(join(tmpdir(), 'assay-gv-'));
  let runId = 0;
  let ids: number[] = [];
  let lexical: GradingSession;
  const first: GradeDetail[] = [];
  const rowsOf = (answerId: number) => count(ctx.database, `select count(*)::int as n from grades where answer_id = $1`, [answerId]);

  beforeAll(async () => {
    ({ runId, answerIds: ids } = await seedRun(ctx.database, 'gv', 2, (i) => (i === 0 ? 'A red barn, a cow in the barn, sheep and a green tractor.' : 'Pigs in the mud beside a fence; hills and a windmill.')));
    lexical = await createGradingSession(ctx.database, { judge: loadJudge('lexical') });
    for (const id of ids) first.push(await lexical.grade({ answer: { id } }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the same judge configuration, rubric version and answer is one grade: grading again replaces it in place', async () => {
    const again = await lexical.grade({ answer: { id: ids[0]! } });
    expect(again.gradeId).toBe(first[0]!.gradeId);
    expect(again.f1).toBe(first[0]!.f1);
    expect(await rowsOf(ids[0]!)).toBe(1);
    expect(await lexical.gradeQueued(ids[0]!)).toBe('already graded');
    expect(await answersNeedingGrade(ctx.database.db, runId, lexical.judgeRowId)).toEqual([]);
  });

  it('a changed rubric: the answers need grading again, the new grade is added and the old one stays readable', async () => {
    // Version 2 keeps the first four items: a different rubric, so a different completeness.
    const v2 = { ...farmyard, items: farmyard.items.slice(0, 4) };
    const stored = await ctx.database.db.transaction((tx) => storeRubric(tx, v2));
    expect(stored.version).toBe(2);
    expect(await answersNeedingGrade(ctx.database.db, runId, lexical.judgeRowId)).toEqual(ids);

    const second = await lexical.gradeQueued(ids[0]!);
    if (typeof second === 'string') throw new Error(`not graded: ${second}`);
    expect(second.rubric).toEqual({ id: farmyard.id, version: 2 });
    expect(second.gradeId).not.toBe(first[0]!.gradeId);
    expect(second.f1).not.toBe(first[0]!.f1);
    expect(await rowsOf(ids[0]!)).toBe(2);
    expect(await answersNeedingGrade(ctx.database.db, runId, lexical.judgeRowId)).toEqual([ids[1]]);

    // The answer page lists both, newest first; the earlier grade is unchanged.
    const listed = await gradesOfAnswer(ctx.database, ids[0]!);
    expect(listed.map((g) => [g.grade.gradeId, g.grade.rubric?.version, g.grade.f1])).toEqual([
      [second.gradeId, 2, second.f1],
      [first[0]!.gradeId, 1, first[0]!.f1],
    ]);

    // Reports: one row per answer, the newest grade — not the two rows of answer 0 counted twice.
    const judge = await chooseJudge(ctx.database, 'lexical');
    expect(judge!.id).toBe(lexical.judgeRowId);
    const rows = await descriptionRows(ctx.database, { run: 'gv' }, judge);
    expect(rows.map((r) => [r.answerId, r.f1])).toEqual([
      [ids[0], second.f1],
      [ids[1], first[1]!.f1],
    ]);
    const board = await leaderboard(ctx.database, { run: 'gv' }, { resamples: 50 });
    const all = board.rows.find((r) => r.model === 'model-x' && r.sizeBucket === 'all')!;
    expect(all.descriptions).toBe(2);
    expect(all.f1).toBeCloseTo((second.f1! + first[1]!.f1!) / 2, 12);

    // Calibration: one judge label per answer, the newest grade's.
    const labels = await calibrationLabels(ctx.database, { key: 'answerId', run: 'gv', judge: 'lexical', scale: 'numeric' });
    expect(labels.filter((l) => l.kind === 'judge').map((l) => [l.answer, l.label])).toEqual([
      [String(ids[0]), second.f1],
      [String(ids[1]), first[1]!.f1],
    ]);
  });

  it('a changed judge configuration (same judge id): a new grade beside the earlier ones; reads by judge id take the newest', async () => {
    const path = join(dir, 'lexical.yaml');
    writeFileSync(path, 'id: lexical\nprovider: lexical\nmodel: lexical-overlap-v1\nmode: rubric\nlexical: { correct: 0.9, partial: 0.6 }\nparams: { max_tokens: 1, temperature: 0, timeout_ms: 10000, max_attempts: 1 }\n');
    const strict = await createGradingSession(ctx.database, { judge: loadJudge(path) });
    expect(strict.judgeRowId).not.toBe(lexical.judgeRowId);
    const third = await strict.grade({ answer: { id: ids[0]! } });
    expect(await rowsOf(ids[0]!)).toBe(3);
    const listed = await gradesOfAnswer(ctx.database, ids[0]!);
    expect(listed.map((g) => g.grade.gradeId)).toEqual([third.gradeId, (listed[1]!.grade.gradeId), first[0]!.gradeId]);
    expect(listed[0]!.grade.judge.configHash).not.toBe(listed[1]!.grade.judge.configHash);

    const labels = await calibrationLabels(ctx.database, { key: 'answerId', run: 'gv', judge: 'lexical', scale: 'numeric' });
    expect(labels.filter((l) => l.kind === 'judge').map((l) => [l.answer, l.label])).toEqual([
      [String(ids[0]), third.f1],
      [String(ids[1]), first[1]!.f1],
    ]);

    // Reports read one configuration: the one with most answers graded ok (rows, not answers, would
    // give the first configuration 3 against 1); a tie goes to the newest configuration.
    expect((await chooseJudge(ctx.database, 'lexical'))!.id).toBe(lexical.judgeRowId);
    const fourth = await strict.grade({ answer: { id: ids[1]! } });
    const judge = await chooseJudge(ctx.database, 'lexical');
    expect(judge!.id).toBe(strict.judgeRowId);
    expect((await descriptionRows(ctx.database, { run: 'gv' }, judge)).map((r) => r.f1)).toEqual([third.f1, fourth.f1]);
  });

  it('judge compare reads the newest grade of each judge and counts the answers a judge has no final grade of', async () => {
    const other = join(dir, 'overlap-loose.yaml');
    writeFileSync(other, 'id: overlap-loose\nprovider: lexical\nmodel: lexical-overlap-v1\nmode: rubric\nlexical: { correct: 0.3, partial: 0.1 }\nparams: { max_tokens: 1, temperature: 0, timeout_ms: 10000, max_attempts: 1 }\n');
    const loose = await createGradingSession(ctx.database, { judge: loadJudge(other) });
    const g = await loose.grade({ answer: { id: ids[0]! } });
    const r = await judgeCompare(ctx.database, { run: 'gv', a: 'lexical', b: 'overlap-loose' });
    // No human labels in this run: no units, but the F1 moves use each judge's newest grade.
    expect(r.units).toBe(0);
    const newest = (await gradesOfAnswer(ctx.database, ids[0]!)).find((x) => x.grade.judge.id === 'lexical')!.grade;
    expect(r.f1Moves.top.map((m) => [m.answer, m.f1A, m.f1B])).toEqual([['a0', newest.f1, g.f1]]);
    expect(r.ungraded).toEqual({ a: 0, b: 1 });

    // A provider failure is not a final grade: an answer with only that grade counts as ungraded until it is
    // graded again. Written on the key of an ok grade (answer, judge row, rubric version), it is kept out:
    // a failure never replaces an ok grade.
    const version = await count(ctx.database, `select rubric_version_id as n from grades where id = $1`, [g.gradeId]);
    const failure = (answerId: number) => ({
      answerId, judgeId: loose.judgeRowId, rubricVersionId: version, promptHash: null, status: 'provider_error', reason: 'HTTP 500', completeness: null, correctness: null, f1: null,
      items: null, claims: null, meta: {}, rawOutput: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, costUsd: null, latencyMs: null,
    });
    expect(await gradeUpserter(ctx.database)(failure(ids[0]!))).toBe('kept');
    expect(await rowsOf(ids[0]!)).toBe(4);
    expect((await gradeUpserter(ctx.database)(failure(ids[1]!)))).toMatchObject({ id: expect.any(Number) });
    expect((await judgeCompare(ctx.database, { run: 'gv', a: 'lexical', b: 'overlap-loose' })).ungraded).toEqual({ a: 0, b: 1 });
  });
});
