import { expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { dataVersion } from '../../src/services/data-versions.ts';
import { describeDb } from '../helpers/db.ts';

/** The shared version read: one query for callers that arrive together, never older than what they saw. */
describeDb('data version reads', (ctx) => {
  const counting = () => {
    let queries = 0;
    const db: Database = { ...ctx.database, execute: (...a: Parameters<Database['execute']>) => (queries++, ctx.database.execute(...a)) };
    return { db, queries: () => queries };
  };

  it('eight callers in one turn share one read (sequences, then locks) and one version', async () => {
    const { db, queries } = counting();
    const versions = await Promise.all(Array.from({ length: 8 }, () => dataVersion(db)));
    expect(queries()).toBe(2);
    expect(new Set(versions).size).toBe(1);
  });

  it('a read starts only after every caller sharing it asked, so a committed write is always inside', async () => {
    const order: string[] = [];
    const db: Database = { ...ctx.database, execute: (...a: Parameters<Database['execute']>) => (order.push('read'), ctx.database.execute(...a)) };
    const before = await dataVersion(db);
    order.length = 0;
    await ctx.database.execute(`insert into runs (name, model) values ('dv-' || md5(random()::text), 'm')`);
    const joined = Array.from({ length: 4 }, () => (order.push('ask'), dataVersion(db)));
    const versions = await Promise.all(joined);
    expect(order).toEqual(['ask', 'ask', 'ask', 'ask', 'read', 'read']);
    expect(new Set(versions)).toEqual(new Set([versions[0]]));
    expect(versions[0]).not.toBe(before);
  });
});
