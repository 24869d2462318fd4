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
const lines = (d: string, f: string) => readFileSync(join(d, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describeDb('run export timestamps', (ctx) => {
  const out = join(dir, `${ENGINES[0]}-${Math.random().toString(36).slice(2)}`);
  beforeAll(async () => {
    await seedRun(ctx.database);
    // Times with microseconds, as now() stores them.
    await ctx.database.execute(`update grades set created_at = created_at + make_interval(secs => (id * 7 + 1) / 1e6)`);
    await ctx.database.execute(`update labels set created_at = '2026-01-02T00:00:00Z'::timestamptz + make_interval(secs => (id * 13 + 1) / 1e6)`);
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
      const again = `${out}-again`;
      await exportRun(fresh.database, { run: 'rt-run', out: again });
      for (const f of readdirSync(out).filter((n) => n.endsWith('.jsonl') || n.endsWith('.parquet'))) expect(readFileSync(join(again, f)), f).toEqual(readFileSync(join(out, f)));
    } finally {
      await fresh.drop();
    }
  }, 60_000);
});
