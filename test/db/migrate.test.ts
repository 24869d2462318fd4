import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { migrate, MIGRATIONS_DIR } from '../../src/db/client.ts';
import { answers, runs } from '../../src/db/schema.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';

describeDb('migrations', (ctx) => {
  it('create every table, empty', async () => {
    const counts = await rowCounts(ctx.database);
    expect(Object.values(counts).every((n) => n === 0)).toBe(true);
    const r = await ctx.database.execute(
      `select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    // Later issues add tables of their own; these are the ones this layer's services rely on.
    expect(r.rows.map((x) => x.table_name)).toEqual(expect.arrayContaining([
      'answers',
      'api_keys',
      'assembly_scores',
      'grades',
      'judge_cache',
      'judges',
      'labels',
      'puzzles',
      'rubric_items',
      'rubric_versions',
      'rubrics',
      'runs',
      'usage_ledger',
    ]));
  });

  it('are idempotent: migrating twice changes nothing', async () => {
    await migrate(ctx.database);
    const r = await ctx.database.execute(`select count(*)::int as n from drizzle.__drizzle_migrations`);
    const journal = JSON.parse(readFileSync(`${MIGRATIONS_DIR}/meta/_journal.json`, 'utf8')) as { entries: unknown[] };
    expect(journal.entries.length).toBeGreaterThanOrEqual(2);
    expect(Number(r.rows[0].n)).toBe(journal.entries.length);
  });

  it('enforce the task vocabulary with a check constraint', async () => {
    const db = ctx.database.db;
    const [run] = await db.insert(runs).values({ name: 'm-check', model: 'm' }).returning();
    await expect(
      db.insert(answers).values({ runId: run!.id, externalId: 'a', task: 'dance' as never }),
    ).rejects.toThrow();
    await db.insert(answers).values({ runId: run!.id, externalId: 'a', task: 'describe', meta: { k: [1] } });
    const rows = await db.select().from(answers).where(sql`${answers.runId} = ${run!.id}`);
    expect(rows.map((r) => [r.task, r.status, r.meta])).toEqual([['describe', 'ok', { k: [1] }]]);
  });

  it('execute() runs parameterised raw SQL', async () => {
    const r = await ctx.database.execute('select $1::int + $2::int as s', [2, 3]);
    expect(Number(r.rows[0].s)).toBe(5);
  });
});
