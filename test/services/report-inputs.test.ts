import type { Context } from 'hono';
import { afterAll, expect, it } from 'vitest';
import { fillReportDatabase } from '../../bench/lib/report-db.ts';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { dataVersion } from '../../src/services/data-versions.ts';
import { reportCacheStats } from '../../src/services/report-cache.ts';
import { GRADED_TABLES } from '../../src/services/report-inputs.ts';
import { assemblyRowsText, chooseJudge, descriptionRowsText } from '../../src/services/report-data.ts';
import { reportModels } from '../../src/services/report-models.ts';
import { buildLeaderboard, calibrationReport, describeThenSolveReport, leaderboard, orientationTable } from '../../src/services/reports.ts';
import { pageCalibration } from '../../src/services/web-calibration.ts';
import { stopThreads } from '../../src/threads/pool.ts';
import { leaderboardPage } from '../../src/web/pages/leaderboard.tsx';
import { describeDb } from '../helpers/db.ts';

/**
 * Issue 15 item 5: a report is cached per version of the tables it reads (migration 0008), so a write
 * recomputes exactly the reports that read the written table, and what they show next is the fresh data.
 */

afterAll(() => stopThreads());

/** Every cached report of this suite, by name, with the tables it reads. */
const REPORTS = {
  leaderboard: (d: Database) => leaderboard(d),
  orientation: (d: Database) => orientationTable(d),
  dtsF1: (d: Database) => describeThenSolveReport(d),
  dtsLabel: (d: Database) => describeThenSolveReport(d, { perception: 'label' }),
  calibration: (d: Database) => calibrationReport(d, { scale: 'verdict' }),
  models: (d: Database) => reportModels(d),
  // A page's kept data and body (web/pages/report-page.ts PAGE_INPUTS): the leaderboard page reads no labels.
  leaderboardPage: async (d: Database) => String(await (await leaderboardPage({} as Context, new URLSearchParams(), d)).body()),
} as const;
type Name = keyof typeof REPORTS;

/** The reports that computed again (rather than hit the cache) when each was asked once, in order. */
async function recomputed(database: Database): Promise<Name[]> {
  const out: Name[] = [];
  for (const [name, run] of Object.entries(REPORTS) as Array<[Name, (d: Database) => Promise<unknown>]>) {
    const before = reportCacheStats(database).computes;
    await run(database);
    if (reportCacheStats(database).computes > before) out.push(name);
  }
  return out;
}

const ALL = Object.keys(REPORTS) as Name[];
const everyReport = (...but: Name[]) => ALL.filter((n) => !but.includes(n));

async function uncachedLeaderboard(database: Database) {
  const judge = await chooseJudge(database);
  const [desc, asm] = await Promise.all([descriptionRowsText(database, {}, judge), assemblyRowsText(database, {})]);
  return buildLeaderboard(JSON.parse(desc), JSON.parse(asm), { seed: 1 });
}

describeDb('report cache inputs', (ctx) => {
  it('every table has the version trigger and its sequence (a table added without one would never invalidate)', async () => {
    const tables = await ctx.database.execute(`select tablename as t from pg_tables where schemaname = current_schema() order by 1`);
    const triggered = await ctx.database.execute(
      `select c.relname as t from pg_trigger g join pg_class c on c.oid = g.tgrelid where g.tgname = 'data_version' and c.relnamespace = current_schema()::regnamespace order by 1`,
    );
    const names = tables.rows.map((r) => String(r.t));
    expect(names.length).toBeGreaterThan(20);
    expect(triggered.rows.map((r) => String(r.t))).toEqual(names);
    // The stamp of every table reads (a missing sequence throws).
    expect(await dataVersion(ctx.database, names)).toMatch(/^adjudications=\d+/);
  });

  it('a write recomputes exactly the reports that read the written table', async () => {
    await fillReportDatabase(ctx.database, 400, 11);
    expect(await recomputed(ctx.database)).toEqual(ALL); // first time: everything computes
    expect(await recomputed(ctx.database)).toEqual([]); // unchanged data: every report from the cache
    // The /calibration page reads the API's calibration (one service, one cache entry): it computes nothing more.
    const computes = reportCacheStats(ctx.database).computes;
    expect((await pageCalibration(ctx.database, { scale: 'verdict' })).report?.units).toBe((await calibrationReport(ctx.database, { scale: 'verdict' })).units);
    expect(reportCacheStats(ctx.database).computes).toBe(computes);

    // A table no report reads: an API key created, then used.
    await ctx.database.execute(`insert into api_keys (prefix, hash, scopes, name) values ('dvtest01', 'x', '["read"]', 'report-inputs test')`);
    await ctx.database.execute(`update api_keys set last_used_at = now()`);
    expect(await recomputed(ctx.database)).toEqual([]);

    // A human label: calibration and describe-then-solve by label read labels; the leaderboard does not.
    const answer = Number((await ctx.database.execute(`select id from answers where task = 'describe' order by id limit 1`)).rows[0]!.id);
    const cal = await calibrationReport(ctx.database, { scale: 'verdict' });
    await ctx.database.execute(`insert into labels (answer_id, item_key, annotator, kind, label) values ($1, 'item-9', 'inputs-test', 'human', 'correct')`, [answer]);
    expect(await recomputed(ctx.database)).toEqual(['dtsLabel', 'calibration']);
    expect(cal.humans).not.toContain('inputs-test');
    expect((await calibrationReport(ctx.database, { scale: 'verdict' })).humans).toContain('inputs-test');

    // A grade: every report but the model list.
    const lb = await leaderboard(ctx.database);
    const g = (await ctx.database.execute(`select g.id, g.f1 from grades g where g.status = 'ok' order by g.id limit 1`)).rows[0] as { id: number; f1: number };
    await ctx.database.execute(`update grades set f1 = $1 where id = $2`, [g.f1 > 0.5 ? 0 : 1, g.id]);
    expect(await recomputed(ctx.database)).toEqual(everyReport('models'));
    const fresh = await leaderboard(ctx.database);
    expect(fresh.rows).not.toEqual(lb.rows);
    expect(fresh.rows).toEqual(await uncachedLeaderboard(ctx.database));

    // A run: every report reads runs.
    await ctx.database.execute(`insert into runs (name, model) values ('inputs-run', 'inputs-model')`);
    expect(await recomputed(ctx.database)).toEqual(ALL);
    expect(await reportModels(ctx.database)).toContain('inputs-model');

    // Truncate counts as a write too (an emptied table must not leave its old reports standing).
    await ctx.database.execute(`truncate assembly_scores`);
    expect(await recomputed(ctx.database)).toEqual(everyReport('models', 'calibration'));
    expect((await leaderboard(ctx.database)).rows.every((r) => r.assemblies === 0)).toBe(true);
  });

  it('a write still in progress on another connection is never cached as current once it commits', async () => {
    if (!ctx.url) return; // PGlite has one session: a reader never runs inside another's open transaction
    const other = await openDatabase({ url: ctx.url, max: 1 });
    try {
      const before = await leaderboard(ctx.database);
      let commit!: () => void;
      const gate = new Promise<void>((r) => (commit = r));
      let written!: () => void;
      const wrote = new Promise<void>((r) => (written = r));
      const tx = other.db.transaction(async (t) => {
        await t.execute(`update grades set f1 = 1 - f1 where status = 'ok'`);
        written();
        await gate;
      });
      await wrote;
      // The sequence has moved but the data is not visible: the stamp names the writer, so this result
      // (the old numbers) is filed under a stamp no later request can have.
      const during = await leaderboard(ctx.database);
      expect(during.rows).toEqual(before.rows);
      expect(await dataVersion(ctx.database, GRADED_TABLES)).toMatch(/grades=\d+~/);
      commit();
      await tx;
      const after = await leaderboard(ctx.database);
      expect(after.rows).not.toEqual(before.rows);
      expect(after.rows).toEqual(await uncachedLeaderboard(ctx.database));
    } finally {
      await other.close();
    }
  });
});
