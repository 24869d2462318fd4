import { expect, it } from 'vitest';
import { runs } from '../../../src/db/schema.ts';
import { findRun } from '../../../src/services/grading/run-ref.ts';
import { describeDb } from '../../helpers/db.ts';

describeDb('findRun: a run by name or by id', (ctx) => {
  it('finds by id, by name, prefers a run literally named like an id, and treats digits beyond int4 as a name only', async () => {
    const [a] = await ctx.database.db.insert(runs).values({ name: 'alpha', model: 'm' }).returning();
    const [huge] = await ctx.database.db.insert(runs).values({ name: '99999999999', model: 'm' }).returning();
    expect((await findRun(ctx.database, 'alpha')).id).toBe(a!.id);
    expect((await findRun(ctx.database, String(a!.id))).name).toBe('alpha');
    const [named] = await ctx.database.db.insert(runs).values({ name: String(a!.id), model: 'm' }).returning();
    expect((await findRun(ctx.database, String(a!.id))).id).toBe(named!.id);
    // Compared with the int4 id column this would fail on PostgreSQL ("out of range"): a name only.
    expect((await findRun(ctx.database, '99999999999')).id).toBe(huge!.id);
    await expect(findRun(ctx.database, '4294967296')).rejects.toMatchObject({ code: 'not_found' });
    await expect(findRun(ctx.database, '0')).rejects.toMatchObject({ code: 'not_found' });
  });
});
