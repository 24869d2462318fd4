import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { describeDb, ENGINES, openTestDatabase } from '../helpers/db.ts';
import { seedRun, storedGrades } from './export-fixture.ts';

/**
 * PostgreSQL keeps a timestamp to the microsecond; an export wrote grades' and labels' created_at to the
 * millisecond (a JS Date), so a run moved to another database came back with other times: up to 999 µs
 * earlier, which can put an imported grade or label before one the target wrote in that millisecond
 * (the newest grade, a person's latest label), and a second export of the copy differed from the first
 * database's. created_at is written and read back to the microsecond.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-ts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const LABELS = `select a.external_id, l.item_key, l.annotator, c.name, to_char(l.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as created_at
  from labels l join answers a on a.id = l.answer_id left join campaigns c on c.id = l.campaign_id order by 1, 2, 3, 4 nulls first`;
const storedLabels = async (db: Database) => (await db.execute(LABELS)).rows;
const us = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
const CAMPAIGN_TIMES = `select c.name, ${us('c.created_at')} as created, (select json_agg(json_build_array(h.annotator, ${us('h.assigned_at')}, ${us('h.done_at')}) order by h.annotator) from campaign_assignments h where h.campaign_id = c.id) as holders,
  (select json_agg(json_build_array(f.item_key, ${us('f.created_at')}) order by f.item_key) from adjudications f where f.campaign_id = c.id) as finals from campaigns c order by c.name`;
const campaignTimes = async (db: Database) => (await db.execute(CAMPAIGN_TIMES)).rows;
const lines = (d: string, f: string) => readFileSync(join(d, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describeDb('run export timestamps', (ctx) => {
  const out = join(dir, `${ENGINES[0]}-${Math.random().toString(36).slice(2)}`);
  beforeAll(async () => {
    await seedRun(ctx.database);
    // Times with microseconds, as now() stores them.
    await ctx.database.execute(`update grades set created_at = created_at + make_interval(secs => (id * 7 + 1) / 1e6)`);
    await ctx.database.execute(`update labels set created_at = '2026-01-02T00:00:00Z'::timestamptz + make_interval(secs => (id * 13 + 1) / 1e6)`);
    // The campaign's queue holds u1, with a holder and a final label, each at a time with microseconds.
    await ctx.database.execute(`update campaigns set created_at = '2026-01-03T00:00:00.123456Z'`);
    await ctx.database.execute(`insert into campaign_answers (campaign_id, answer_id, rank, reason) select c.id, a.id, 0, 'audit' from campaigns c, answers a where a.external_id = 'u1'`);
    await ctx.database.execute(`insert into campaign_assignments (campaign_id, answer_id, annotator, assigned_at, done_at) select c.id, a.id, 'alice', '2026-01-03T01:00:00.000001Z', '2026-01-03T02:00:00.999999Z' from campaigns c, answers a where a.external_id = 'u1'`);
    await ctx.database.execute(`insert into adjudications (campaign_id, answer_id, item_key, label, adjudicator, created_at) select c.id, a.id, 'a', 'correct', 'carol', '2026-01-03T03:00:00.000777Z' from campaigns c, answers a where a.external_id = 'u1'`);
    await exportRun(ctx.database, { run: 'rt-run', out });
  }, 60_000);

  it('writes created_at to the microsecond, and an empty database gets the same times; exporting it again gives the same files', async () => {
    for (const f of ['grades.jsonl', 'labels.jsonl']) for (const r of lines(out, f)) expect(r.created_at, f).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const grades = await storedGrades(ctx.database);
    expect(grades.some((g) => !String(g.created_at).endsWith('000'))).toBe(true);
    const fresh = await openTestDatabase(ENGINES[0]!);
    try {
      await importRunExport(fresh.database, out);
      expect(await storedGrades(fresh.database)).toEqual(grades);
      expect(await storedLabels(fresh.database)).toEqual(await storedLabels(ctx.database));
      const times = await campaignTimes(ctx.database);
      expect(times).toEqual([{ name: 'rt-campaign', created: '2026-01-03T00:00:00.123456', holders: [['alice', '2026-01-03T01:00:00.000001', '2026-01-03T02:00:00.999999']], finals: [['a', '2026-01-03T03:00:00.000777']] }]);
      expect(await campaignTimes(fresh.database)).toEqual(times);
      const again = `${out}-again`;
      await exportRun(fresh.database, { run: 'rt-run', out: again });
      for (const f of readdirSync(out).filter((n) => n.endsWith('.jsonl') || n.endsWith('.parquet'))) expect(readFileSync(join(again, f)), f).toEqual(readFileSync(join(out, f)));
    } finally {
      await fresh.drop();
    }
  }, 60_000);
});
