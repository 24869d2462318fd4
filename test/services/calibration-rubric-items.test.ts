import { beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { answers, grades, judges, labels, rubricItems, rubrics, rubricVersions, runs } from '../../src/db/schema.ts';
import { calibrate } from '../../src/analysis/calibration/index.ts';
import { loadRunCalibration } from '../../src/services/grading/calibration-labels.ts';
import { judgeCompare } from '../../src/services/judge-compare.ts';
import { calibrationReport } from '../../src/services/report-analysis.ts';
import { describeDb } from '../helpers/db.ts';
import { useApi } from '../api/app-fixture.ts';

/**
 * Per-item figures are per (rubric, item): the bundled ImageInWords rubrics share item ids ('sky' in ~25
 * of them), and grouping by the item id alone pooled unrelated rubrics into one row, silently.
 *
 * One run, two rubrics that both have an item 'sky': rb-lake (answers L0–L3) and rb-city (C0–C3).
 * Human h1 labels sky correct, incorrect, correct, incorrect on both. Judge ja gives the human verdict on
 * every lake answer and the opposite on every city answer; judge jb the reverse.
 *   ja vs majority, rb-lake/sky: agreement 4/4 = 1; kappa: po 1, pe (2·2 + 2·2)/16 = 1/2 → κ = 1
 *   ja vs majority, rb-city/sky: agreement 0/4 = 0; po 0, pe 1/2 → κ = (0 − 1/2)/(1/2) = −1
 *   (pooled as one 'sky' row: agreement 4/8 = 0.5, κ = 0 — a figure of neither rubric)
 * Judge compare A = ja, B = jb: every unit flips. rb-lake/sky: A had the human verdict, B leaves it →
 * 4 away from the human; rb-city/sky: 4 toward it (pooled: 8 flips, 4 toward, 4 away).
 */

const HUMAN = ['correct', 'incorrect', 'correct', 'incorrect'] as const;
const flip = (v: string) => (v === 'correct' ? 'incorrect' : 'correct');

async function seed(database: Database): Promise<void> {
  const db = database.db;
  const [run] = await db.insert(runs).values({ name: 'iiw', model: 'm1' }).returning();
  const js = await db
    .insert(judges)
    .values(['ja', 'jb'].map((slug) => ({ slug, provider: 'lexical', model: slug, config: {}, configHash: `h-${slug}` })))
    .returning({ id: judges.id, slug: judges.slug });
  for (const [slug, prefix] of [['rb-lake', 'L'], ['rb-city', 'C']] as const) {
    const [rb] = await db.insert(rubrics).values({ slug, title: slug }).returning();
    const [rv] = await db.insert(rubricVersions).values({ rubricId: rb!.id, version: 1, title: slug, reference: 'A sky.', contentHash: `h-${slug}` }).returning();
    await db.insert(rubricItems).values([{ rubricVersionId: rv!.id, itemKey: 'sky', text: 'the sky', weight: 1, position: 0 }]);
    for (const [i, human] of HUMAN.entries()) {
      const [a] = await db
        .insert(answers)
        .values({ runId: run!.id, externalId: `${prefix}${i}`, task: 'describe', rubricId: rb!.id, text: 'A sky.' })
        .returning({ id: answers.id });
      await db.insert(labels).values({ answerId: a!.id, itemKey: 'sky', annotator: 'h1', kind: 'human', label: human, rubricVersionId: rv!.id });
      for (const j of js) {
        const agrees = (j.slug === 'ja') === (prefix === 'L');
        await db.insert(grades).values({ answerId: a!.id, judgeId: j.id, rubricVersionId: rv!.id, status: 'ok', items: [{ id: 'sky', verdict: agrees ? human : flip(human) }] as never });
      }
    }
  }
}

type ItemRow = { rubric: string | null; item: string; n: number; disagreements: number; vsMajority: { agreement?: number | null; kappa?: { kappa: number | null } } };
const figures = (rows: ItemRow[]) =>
  rows.map((r) => ({ rubric: r.rubric, item: r.item, n: r.n, disagreements: r.disagreements, agreement: r.vsMajority.agreement, kappa: r.vsMajority.kappa?.kappa }));
const EXPECTED = [
  { rubric: 'rb-city', item: 'sky', n: 4, disagreements: 4, agreement: 0, kappa: -1 },
  { rubric: 'rb-lake', item: 'sky', n: 4, disagreements: 0, agreement: 1, kappa: 1 },
];

describeDb('per-item calibration figures are per (rubric, item)', (ctx) => {
  const api = useApi(ctx);
  beforeAll(async () => {
    await seed(ctx.database);
  });

  it('GET /api/reports/calibration: one row per rubric’s sky, with its own agreement and kappa', async () => {
    const res = await api.call(api.keys.read, 'GET', '/api/reports/calibration?scale=verdict&judge=ja');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: number; judgeReports: Array<{ byItem: ItemRow[] }> };
    expect(body.items).toBe(2);
    expect(figures(body.judgeReports[0]!.byItem)).toEqual(EXPECTED);
  });

  it('the stored calibration with the people’s majority keeps each row’s rubric', async () => {
    const r = await calibrationReport(ctx.database, { scale: 'verdict', judge: 'ja', humans: 'majority' });
    expect(figures(r.judgeReports[0]!.byItem as ItemRow[])).toEqual(EXPECTED);
  });

  it('assay calibrate --run: the run’s rows name their rubric', async () => {
    const { rows } = await loadRunCalibration(ctx.database, { run: 'iiw', judge: 'ja', scale: 'verdict' });
    expect(new Set(rows.map((r) => `${r.answer[0]} ${r.rubric}`))).toEqual(new Set(['L rb-lake', 'C rb-city']));
    const report = calibrate(rows, { scale: 'verdict', judge: 'ja' });
    expect(figures(report.judgeReports[0]!.byItem as ItemRow[])).toEqual(EXPECTED);
  });

  it('judge compare: flips per (rubric, item)', async () => {
    const r = await judgeCompare(ctx.database, { run: 'iiw', a: 'ja', b: 'jb', resamples: 20 });
    expect(r.flips).toMatchObject({ units: 8, flips: 8, towardHuman: 4, awayFromHuman: 4 });
    expect(r.flips.items.map((i) => ({ rubric: (i as { rubric?: string | null }).rubric, item: i.item, units: i.units, flips: i.flips, towardHuman: i.towardHuman, awayFromHuman: i.awayFromHuman }))).toEqual([
      { rubric: 'rb-city', item: 'sky', units: 4, flips: 4, towardHuman: 4, awayFromHuman: 0 },
      { rubric: 'rb-lake', item: 'sky', units: 4, flips: 4, towardHuman: 0, awayFromHuman: 4 },
    ]);
  });
});
