import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Database } from '../../src/db/client.ts';
import { campaignAgreement, createCampaign, nextForAnnotator, saveCampaignLabels, type ScaleAgreement } from '../../src/services/campaigns/index.ts';
import { campaignLabels } from '../../src/services/campaigns/campaign-labels.ts';
import { findCampaign } from '../../src/services/campaigns/load.ts';
import { saveWorkspaceMarks } from '../../src/services/workspace.ts';
import { runCli } from '../helpers/cli.ts';
import { ENGINES, openTestDatabase } from '../helpers/db.ts';
import { seedCampaignWorld } from '../services/campaigns/fixture.ts';

/**
 * `assay analyze ratings --campaign C` (and `--run R`, whose criterion C is campaign C) reads the same
 * labels as campaign C's agreement report: those of annotators who hold the answer. Before, a rating
 * of a campaign annotator refused a slot (k full) and given on the plain workspace counted as a third
 * rater of a k = 2 answer, and `--run` put a holder's rating given outside the campaign under `rating`.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function seed(database: Database): Promise<ScaleAgreement> {
  const { answerIds } = await seedCampaignWorld(database, { run: 'rate-hold-run', n: 3, disagree: [] });
  const [q0, q1, q2] = answerIds as [number, number, number];
  await createCampaign(database, {
    name: 'rate-hold',
    answers: { run: 'rate-hold-run' },
    scales: { numeric: { k: 5, anchors: ['1', '2', '3', '4', '5'] } },
    annotators: ['ann', 'bea', 'cai'],
    overlap: 2,
  });
  const rate = (annotator: string, answerId: number, label: number) => saveCampaignLabels(database, { campaign: 'rate-hold', answerId, annotator, marks: [{ scale: 'numeric', label }] });
  await rate('ann', q0, 4);
  await rate('bea', q0, 3);
  await rate('ann', q1, 2);
  await rate('bea', q1, 2);
  // cai is refused a third slot of q0 (k = 2), then rates it on the plain workspace, which knows no k.
  await expect(rate('cai', q0, 1)).rejects.toMatchObject({ code: 'conflict' });
  await saveWorkspaceMarks(database, { answerId: q0, annotator: 'cai', marks: [{ rating: 1 }] });
  // ann rates q2 on the plain workspace, then takes it in the campaign: a holder's rating counts.
  await saveWorkspaceMarks(database, { answerId: q2, annotator: 'ann', marks: [{ rating: 5 }] });
  expect(await nextForAnnotator(database, { campaign: 'rate-hold', annotator: 'ann' })).toMatchObject({ answerId: q2 });
  await rate('bea', q2, 4);
  const [numeric] = await campaignAgreement(database, 'rate-hold');
  return numeric!;
}

for (const engine of ENGINES) {
  describe(`assay analyze ratings over a campaign's holders only [${engine}]`, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'assay-rate-hold-'));
    let env: NodeJS.ProcessEnv = {};
    let drop: () => Promise<void> = async () => {};
    let report: ScaleAgreement;

    beforeAll(async () => {
      if (engine === 'pglite') {
        env = { DATABASE_URL: '', ASSAY_DATA_DIR: join(tmp, 'data') };
        // A PGlite directory has one owner at a time: seeded and closed before the CLI opens it.
        const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
        try {
          await migrate(database);
          report = await seed(database);
        } finally {
          await database.close();
        }
      } else {
        const opened = await openTestDatabase('postgres');
        env = { DATABASE_URL: opened.url!, ASSAY_DATA_DIR: join(tmp, 'data') };
        drop = opened.drop;
        report = await seed(opened.database);
      }
    }, 300_000);
    afterAll(async () => {
      await drop();
      rmSync(tmp, { recursive: true, force: true });
    });

    it('--campaign gives the campaign report\'s raters, units and alpha (cai, who holds no slot, is not a rater)', () => {
      // The campaign report, by hand: ann (4, 2, 5) and bea (3, 2, 4) over 3 answers; interval alpha
      // 1 − D_o/D_e with D_o = (2 + 0 + 2)/6 and D_e = 88/30: 17/22.
      expect(report.scale).toBe('numeric');
      const r = report.report!;
      expect(r).toMatchObject({ units: 3, humans: ['ann', 'bea'], judges: [] });
      expect(r.humanCeiling.alpha).toMatchObject({ level: 'interval', units: 3, raters: ['ann', 'bea'] });
      expect(r.humanCeiling.alpha.alpha).toBeCloseTo(17 / 22, 12);
      expect(r.humanCeiling.pairs['ann ~ bea']!.n).toBe(3);

      const out = runCli(['analyze', 'ratings', '--campaign', 'rate-hold', '--json'], { env });
      expect(out.stderr).toBe('');
      const cli: Json = out.json();
      expect(cli.agreement).toHaveLength(1);
      const a = cli.agreement[0];
      expect({ criterion: a.criterion, raters: a.raters, units: a.units, complete: a.completeUnits }).toEqual({ criterion: 'rate-hold', raters: r.humans, units: r.units, complete: r.humanCeiling.pairs['ann ~ bea']!.n });
      expect(a.alpha.interval.alpha).toBe(r.humanCeiling.alpha.alpha);
      expect(a.alpha.interval.pairable).toBe(r.humanCeiling.alpha.units);
      expect(cli.summaries).toEqual([{ model: 'm1', criterion: 'rate-hold', n: 6, items: 3, raters: 2, mean: 20 / 6, sd: expect.any(Number) }]);
    }, 120_000);

    it('--run: criterion rate-hold is the campaign\'s labels (the same figures), cai\'s rating is a plain one', () => {
      const byCampaign: Json = runCli(['analyze', 'ratings', '--campaign', 'rate-hold', '--json'], { env }).json();
      const out = runCli(['analyze', 'ratings', '--run', 'rate-hold-run', '--json'], { env });
      expect(out.stderr).toBe('');
      const cli: Json = out.json();
      expect(cli.agreement.map((a: Json) => [a.criterion, a.raters, a.units])).toEqual([
        ['rate-hold', ['ann', 'bea'], 3],
        ['rating', ['cai'], 1],
      ]);
      expect(cli.agreement[0]).toEqual(byCampaign.agreement[0]);
      expect(cli.summaries.filter((s: Json) => s.criterion === 'rate-hold')).toEqual(byCampaign.summaries);
    }, 120_000);
  });
}

/**
 * Two campaigns over the same answers, one person rating in both: `--run R` lists each campaign's
 * criterion with exactly campaignLabels(that campaign). Before, every `answer:numeric` row of a person
 * went under every campaign they hold the answer in, so ann's rating given in rate-b also counted
 * under rate-a (two ratings of one answer by one rater), and bea's plain rating of an answer she rated
 * in rate-b (not one of rate-b's labels: it has her own) counted under rate-b instead of `rating`.
 */
type Given = Record<string, Array<[string, string, number]>>;

async function seedTwo(database: Database): Promise<Given> {
  const { answerIds } = await seedCampaignWorld(database, { run: 'rate-two-run', n: 2, disagree: [] });
  const [q0, q1] = answerIds as [number, number];
  for (const name of ['rate-a', 'rate-b']) {
    await createCampaign(database, { name, answers: { run: 'rate-two-run' }, scales: { numeric: { k: 5, anchors: ['1', '2', '3', '4', '5'] } }, annotators: ['ann', 'bea'], overlap: 2 });
  }
  const rate = (campaign: string, annotator: string, answerId: number, label: number) => saveCampaignLabels(database, { campaign, answerId, annotator, marks: [{ scale: 'numeric', label }] });
  await rate('rate-a', 'ann', q0, 4);
  await rate('rate-a', 'bea', q0, 3);
  await rate('rate-b', 'ann', q0, 2);
  await rate('rate-b', 'ann', q1, 5);
  await rate('rate-b', 'bea', q1, 1);
  // bea's plain rating of q1: rate-b has her own label of it, rate-a has no slot of hers there.
  await saveWorkspaceMarks(database, { answerId: q1, annotator: 'bea', marks: [{ rating: 2 }] });
  const given: Given = {};
  for (const name of ['rate-a', 'rate-b']) {
    const labels = await campaignLabels(database.db, await findCampaign(database.db, name));
    given[name] = labels.filter((l) => l.unit === 'answer:numeric').map((l) => [`${l.run}/${l.answer}`, l.annotator, Number(l.label)]);
  }
  return given;
}

for (const engine of ENGINES) {
  describe(`assay analyze ratings --run over two campaigns of the same answers [${engine}]`, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'assay-rate-two-'));
    let env: NodeJS.ProcessEnv = {};
    let drop: () => Promise<void> = async () => {};
    let given: Given = {};

    beforeAll(async () => {
      if (engine === 'pglite') {
        env = { DATABASE_URL: '', ASSAY_DATA_DIR: join(tmp, 'data') };
        const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR! });
        try {
          await migrate(database);
          given = await seedTwo(database);
        } finally {
          await database.close();
        }
      } else {
        const opened = await openTestDatabase('postgres');
        env = { DATABASE_URL: opened.url!, ASSAY_DATA_DIR: join(tmp, 'data') };
        drop = opened.drop;
        given = await seedTwo(opened.database);
      }
    }, 300_000);
    afterAll(async () => {
      await drop();
      rmSync(tmp, { recursive: true, force: true });
    });

    it("each campaign's criterion is its labels exactly, and equals --campaign; the plain rating nobody's campaign reads is `rating`", () => {
      expect(given).toEqual({
        'rate-a': [['rate-two-run/q0', 'ann', 4], ['rate-two-run/q0', 'bea', 3]],
        'rate-b': [['rate-two-run/q0', 'ann', 2], ['rate-two-run/q1', 'ann', 5], ['rate-two-run/q1', 'bea', 1]],
      });
      const out = runCli(['analyze', 'ratings', '--run', 'rate-two-run', '--json'], { env });
      expect(out.stderr).toBe('');
      const cli: Json = out.json();
      expect(cli.agreement.map((a: Json) => [a.criterion, a.raters, a.units])).toEqual([
        ['rate-a', ['ann', 'bea'], 1],
        ['rate-b', ['ann', 'bea'], 2],
        ['rating', ['bea'], 1],
      ]);
      for (const name of ['rate-a', 'rate-b']) {
        const ratings = given[name]!.map(([, , v]) => v);
        const mean = ratings.reduce((s, v) => s + v, 0) / ratings.length;
        expect(cli.summaries.filter((s: Json) => s.criterion === name)).toEqual([expect.objectContaining({ criterion: name, n: ratings.length, mean: expect.closeTo(mean, 12) })]);
        const byCampaign: Json = runCli(['analyze', 'ratings', '--campaign', name, '--json'], { env }).json();
        expect(cli.agreement.find((a: Json) => a.criterion === name)).toEqual(byCampaign.agreement[0]);
        expect(cli.summaries.filter((s: Json) => s.criterion === name)).toEqual(byCampaign.summaries);
      }
    }, 120_000);
  });
}
