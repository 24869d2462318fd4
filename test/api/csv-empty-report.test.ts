import { beforeAll, expect, it } from 'vitest';
import { seedExamples } from '../../src/services/seed.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from './app-fixture.ts';

/**
 * A table report's CSV (Accept: text/csv) has its header row also when it has no rows (a run without
 * answers), the columns of the same report with rows. Before, the header was the union of the rows' keys,
 * so such a report was one blank line.
 */

describeDb('CSV of a report without rows', (ctx) => {
  const api = useApi(ctx);
  const csv = async (path: string) => {
    const res = await api.call(api.keys.read, 'GET', path, { headers: { accept: 'text/csv' } });
    const text = await res.text();
    expect([path, res.status]).toEqual([path, 200]);
    return text.split('\r\n');
  };
  beforeAll(async () => {
    await seedExamples(ctx.database);
    await ctx.database.execute(`insert into runs (name, model) values ('empty-run', 'empty-model')`);
  }, 180_000);

  it('has the columns of the report with rows, and no row', async () => {
    for (const report of ['leaderboard', 'orientation', 'ablation', 'effort']) {
      const [header, row] = await csv(`/api/reports/${report}`);
      expect(row, report).not.toBe('');
      const [emptyHeader, ...rest] = await csv(`/api/reports/${report}?run=empty-run`);
      expect([emptyHeader!.split(',').filter((c) => header!.split(',').includes(c)).length, rest], report).toEqual([header!.split(',').length, ['']]);
    }
  });
});
