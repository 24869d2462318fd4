import { beforeAll, expect, it } from 'vitest';
import { calibrationRows } from '../../src/services/report-analysis.ts';
import { describeDb } from '../helpers/db.ts';
import { seedCampaignWorld } from '../services/campaigns/fixture.ts';
import { useApi } from './app-fixture.ts';

/**
 * Every report filter a report route declares narrows its rows. Two rubrics, one run each (rf-1 over
 * rubric rb-rf-1, 2 answers; rf-2 over rb-rf-2, 3 answers), human verdicts on all of them: before,
 * `GET /api/reports/calibration?rubric=rb-rf-1` never passed the rubric on, so it calibrated all 5
 * answers (10 units) while answering as if filtered.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

describeDb('report filters: rubric', (ctx) => {
  const api = useApi(ctx);
  const get = async (path: string): Promise<Json> => {
    const res = await api.call(api.keys.read, 'GET', path);
    expect(res.status, path).toBe(200);
    return (await res.json()) as Json;
  };
  const ids: Record<string, number[]> = {};

  beforeAll(async () => {
    for (const [run, n] of [['rf-1', 2], ['rf-2', 3]] as const) {
      ids[run] = (await seedCampaignWorld(ctx.database, { run, n, disagree: [] })).answerIds;
      await ctx.database.execute(
        `insert into labels (answer_id, item_key, annotator, kind, label) select id, 'a', 'h1', 'human', 'correct' from answers where id = any($1::int[])`,
        [ids[run]],
      );
    }
  });

  it('calibration rows of a rubric are exactly its answers’ rows', async () => {
    const all = await calibrationRows(ctx.database, 'verdict');
    const one = await calibrationRows(ctx.database, 'verdict', { rubric: 'rb-rf-1' });
    const inRubric = new Set(ids['rf-1']!.map(String));
    expect(new Set(all.map((r) => r.answer)).size).toBe(5);
    expect(one.length).toBeGreaterThan(0);
    expect(one).toEqual(all.filter((r) => inRubric.has(r.answer)));
    expect(one).toEqual(await calibrationRows(ctx.database, 'verdict', { run: 'rf-1' }));
  });

  it('GET /api/reports/calibration?rubric= covers that rubric’s answers only', async () => {
    const all = await get('/api/reports/calibration?scale=verdict');
    const one = await get('/api/reports/calibration?scale=verdict&rubric=rb-rf-1');
    // Units are (answer, item): items a and b of each answer.
    expect(all.units).toBe(10);
    expect(one.units).toBe(4);
    expect(one).toEqual(await get('/api/reports/calibration?scale=verdict&run=rf-1'));
    expect((await get('/api/reports/calibration?scale=verdict&rubric=rb-rf-2')).units).toBe(6);
  });
});
