import type { Context } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { fillReportDatabase } from '../../bench/lib/report-db.ts';
import type { Database } from '../../src/db/client.ts';
import { calibrate } from '../../src/analysis/calibration/index.ts';
import { versionNotes } from '../../src/services/grading/label-versions.ts';
import { calibrationRowSet } from '../../src/services/report-analysis.ts';
import { memoEachByContent, memoLast, sameData } from '../../src/services/content-memo.ts';
import { calibrationReport, leaderboard } from '../../src/services/reports.ts';
import { pageCalibration } from '../../src/services/web-calibration.ts';
import { stopThreads } from '../../src/threads/pool.ts';
import { leaderboardPage } from '../../src/web/pages/leaderboard.tsx';
import { describeDb } from '../helpers/db.ts';

/**
 * Issue 15 item 5: what a cold report costs besides its numbers. A computation reads the data versions
 * once and the parts it asks for inside take their stamps from that read; a calibration whose label rows
 * did not change (a regrade's F1 on the verdict scale) is not computed again — and either way the numbers
 * are those of a fresh computation.
 */

afterAll(() => stopThreads());

/** Counts the version reads (the sequences query of report-cache.ts) made while `f` runs. */
async function versionReads(database: Database, f: () => Promise<unknown>): Promise<number> {
  const exec = database.execute;
  let n = 0;
  database.execute = ((sql: string, params?: unknown[]) => {
    if (sql.includes('pg_sequence_last_value')) n++;
    return exec.call(database, sql, params as never);
  }) as typeof database.execute;
  try {
    await f();
  } finally {
    database.execute = exec;
  }
  return n;
}

const regradeF1 = (d: Database) => d.execute(`update grades set f1 = case when f1 > 0.5 then f1 - 0.01 else f1 + 0.01 end where id = (select min(id) from grades where status = 'ok')`);

describeDb('report parts', (ctx) => {
  it('a cold page reads the versions once (its report and the report\'s parts share the read)', async () => {
    const d = ctx.database;
    await fillReportDatabase(d, 400, 3);
    const page = () => leaderboardPage({} as Context, new URLSearchParams(), d).then((p) => p.body());
    await page();
    await regradeF1(d);
    // The page, the leaderboard, the judge, the facts, both halves, the models: one read between them.
    expect(await versionReads(d, page)).toBe(1);
    // Warm: the page's own check only.
    expect(await versionReads(d, page)).toBe(1);
    // Two reports asked one after the other each read (neither is inside the other).
    await regradeF1(d);
    expect(await versionReads(d, async () => (await leaderboard(d), await leaderboard(d, {}, { seed: 9, resamples: 20 })))).toBe(2);
  });

  it('a calibration over unchanged label rows is the calibration of those rows; changed rows give the new one', async () => {
    const d = ctx.database;
    const opts = { scale: 'verdict' as const, seed: 1, source: 'stored labels' };
    // As the report is made: the calibration of the rows, with what the rows' rubric versions left out (its notes).
    const fresh = async () => {
      const { rows, versions } = await calibrationRowSet(d, 'verdict');
      const r = calibrate(rows, opts);
      return { ...r, notes: [...r.notes, ...versionNotes(versions)] };
    };
    const before = await calibrationReport(d, { scale: 'verdict' });
    const page = await pageCalibration(d, { scale: 'verdict' });
    // F1 is not a verdict: the rows stay, the report too (from the memo), and it is what a fresh calibration says.
    await regradeF1(d);
    const after = await calibrationReport(d, { scale: 'verdict' });
    expect(after).toEqual(before);
    const { judgeNotes, setAside, excludedExamples, unverifiable, unverifiableNote, ...report } = after;
    expect(judgeNotes).toBeDefined();
    expect([setAside, excludedExamples]).toEqual([0, {}]);
    // The verdict scale reads no F1: under the default policy, nothing left out.
    expect([unverifiable, unverifiableNote]).toEqual(['count', null]);
    expect(report).toEqual(await fresh());
    expect((await pageCalibration(d, { scale: 'verdict' })).report).toEqual(page.report);
    // A judge verdict of a labelled answer turned around: new rows, a new report, again a fresh one's.
    const labelled = Number((await d.execute(`select answer_id from labels where kind = 'human' order by answer_id limit 1`)).rows[0]!.answer_id);
    await d.execute(
      `update grades set items = (select jsonb_agg(case when it->>'verdict' = 'correct' then jsonb_set(it, '{verdict}', '"incorrect"') else jsonb_set(it, '{verdict}', '"correct"') end) from jsonb_array_elements(items) it)
        where answer_id = $1`,
      [labelled],
    );
    const changed = await calibrationReport(d, { scale: 'verdict' });
    expect(changed).not.toEqual(before);
    const { judgeNotes: _, setAside: _s, excludedExamples: _e, unverifiable: _u, unverifiableNote: _n, ...changedReport } = changed;
    expect(changedReport).toEqual(await fresh());
    expect((await pageCalibration(d, { scale: 'verdict' })).report).toEqual(changedReport);
  });
});

describe('memoEachByContent', () => {
  it('computes only the inputs it does not remember, in one call, and gives every value in order', async () => {
    const calls: number[][] = [];
    const square = async (xs: unknown[]) => {
      calls.push(xs as number[]);
      return (xs as number[]).map((x) => x * x);
    };
    const name = `test-${Math.random()}`;
    expect(await memoEachByContent(name, [1, 2, 3], square)).toEqual([1, 4, 9]);
    expect(calls).toEqual([[1, 2, 3]]);
    // 2 and 3 remembered: one call for the two new ones, a repeated input computed once.
    expect(await memoEachByContent(name, [4, 2, 5, 3, 4], square)).toEqual([16, 4, 25, 9, 16]);
    expect(calls).toEqual([[1, 2, 3], [4, 5]]);
    expect(await memoEachByContent(name, [5, 1], square)).toEqual([25, 1]);
    expect(calls).toHaveLength(2);
    // Two callers at once share the computation of what both miss.
    const [a, b] = await Promise.all([memoEachByContent(name, [6, 7], square), memoEachByContent(name, [7, 6], square)]);
    expect([a, b]).toEqual([[36, 49], [49, 36]]);
    expect(calls).toEqual([[1, 2, 3], [4, 5], [6, 7]]);
    // A failed computation is not remembered.
    await expect(memoEachByContent(name, [8], async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await memoEachByContent(name, [8], square)).toEqual([64]);
  });
});

describe('memoLast', () => {
  it('reuses the value while the input equals the last one under the key, and computes again when it does not', async () => {
    let computed = 0;
    const f = (input: unknown) => memoLast('test-memo-last', input, async () => ++computed);
    const rows = [{ answer: '1', label: 'correct', rater: 'h' }, { answer: '2', label: 0.5, rater: 'j' }];
    expect(await f({ rows, seed: 1 })).toBe(1);
    expect(await f({ rows: structuredClone(rows), seed: 1 })).toBe(1);
    expect(await f({ rows: [...rows, { answer: '3', label: 'missing', rater: 'h' }], seed: 1 })).toBe(2);
    expect(await f({ rows: [...rows, { answer: '3', label: 'missing', rater: 'h' }], seed: 2 })).toBe(3);
    expect(await f({ rows: [...rows, { answer: '3', label: 'missing', rater: 'h' }], seed: 2 })).toBe(3);
  });

  it('compares plain data structurally: -0 is not 0, a missing key is not an undefined one, key order counts', () => {
    expect(sameData({ a: [1, 'x', null, { b: true }] }, { a: [1, 'x', null, { b: true }] })).toBe(true);
    expect(sameData(0, -0)).toBe(false);
    expect(sameData(Number.NaN, Number.NaN)).toBe(true);
    expect(sameData({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameData({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameData([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameData([[1], [2]], [[1], [3]])).toBe(false);
    expect(sameData(new Date(0), new Date(1))).toBe(false);
  });
});
