import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/db/client.ts';
import { nextForAnnotator, saveCampaignLabels } from '../../src/services/campaigns/index.ts';
import { runCli } from '../helpers/cli.ts';
import { seedCampaignWorld } from '../services/campaigns/fixture.ts';

/**
 * `assay campaign create|list|show|export|adjudicate` through the binary, and `assay calibrate --humans`
 * reading the adjudicated final label. Two annotators label two answers and disagree on item b of q0.
 */
describe('assay campaign', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'assay-campaign-'));
  const env = { DATABASE_URL: '', ASSAY_DATA_DIR: join(tmp, 'data') };
  const specFile = join(tmp, 'study.yaml');
  let answerIds: number[] = [];

  beforeAll(async () => {
    const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR });
    try {
      await migrate(database);
      ({ answerIds } = await seedCampaignWorld(database, { run: 'cli-run', n: 2, disagree: [1] }));
    } finally {
      await database.close();
    }
    writeFileSync(specFile, ['name: study', 'answers: { run: cli-run }', 'scales: { verdict: true }', 'annotators: [ann, bea]', 'overlap: 2', 'order: { auditShare: 0 }', ''].join('\n'));
  }, 300_000);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('creates a campaign with the disagreement first, and refuses a bad spec with exit 2 and nothing written', () => {
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, 'name: bad\nanswers: { run: cli-run }\nscales: { verdict: true }\nannotators: [ann]\noverlap: 2\n');
    const refused = runCli(['campaign', 'create', bad], { env });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim()).toMatch(/overlap k = 2 needs at least 2 annotators, got 1$/);

    const r = runCli(['campaign', 'create', specFile], { env });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe("campaign 1 'study': 2 answers queued (1 disagreement, 0 audit, 1 rest), k = 2, annotators ann, bea");
    expect(runCli(['campaign', 'create', specFile], { env }).stderr).toMatch(/campaign 'study' already exists/);
    const list = runCli(['campaign', 'list', '--json'], { env }).json();
    expect(list.campaigns.map((c: { name: string; answers: number }) => [c.name, c.answers])).toEqual([['study', 2]]);
  }, 300_000);

  it('shows the disagreement, records the final label, exports it, and calibrate --humans adjudicated uses it', async () => {
    const database = await openDatabase({ dataDir: env.ASSAY_DATA_DIR });
    try {
      for (const a of ['ann', 'bea']) {
        for (let n = await nextForAnnotator(database, { campaign: 'study', annotator: a }); n; n = await nextForAnnotator(database, { campaign: 'study', annotator: a })) {
          const b = a === 'bea' && n.answerId === answerIds[0] ? 'missing' : 'correct';
          await saveCampaignLabels(database, { campaign: 'study', answerId: n.answerId, annotator: a, marks: [{ scale: 'verdict', item: 'a', label: 'correct' }, { scale: 'verdict', item: 'b', label: b }] });
        }
      }
    } finally {
      await database.close();
    }
    const show = runCli(['campaign', 'show', 'study'], { env });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('2 of 2 answers complete (k = 2)');
    expect(show.stdout).toContain('1 disagreement(s) waiting for adjudication');
    expect(show.stdout).toMatch(new RegExp(`${answerIds[0]}\\s+b\\s+ann=correct bea=missing`));

    const args = ['campaign', 'adjudicate', 'study', '--answer', String(answerIds[0]), '--unit', 'b', '--adjudicator', 'judy'];
    const badLabel = runCli([...args, '--label', 'maybe'], { env });
    expect(badLabel.code).toBe(2);
    expect(badLabel.stderr.trim()).toBe('assay campaign adjudicate: label: "maybe" is not valid for b (expected correct|partial|incorrect|missing)');
    expect(runCli(['campaign', 'adjudicate', 'study', '--answer', String(answerIds[0]), '--unit', 'a', '--adjudicator', 'judy', '--label', 'partial'], { env }).code).toBe(2);
    const ok = runCli([...args, '--label', 'partial'], { env });
    expect(ok.stdout.trim()).toBe(`recorded final label partial for answer ${answerIds[0]} b (by judy)`);

    const csv = runCli(['campaign', 'export', 'study'], { env }).stdout.trim().split(/\r?\n/);
    expect(csv[0]).toBe('campaign,answer_id,answer,run,model,unit,rater,source,label,campaign_id,note,created_at');
    expect(csv).toHaveLength(1 + 8 + 1);
    expect(csv.at(-1)).toMatch(new RegExp(`^study,${answerIds[0]},q0,cli-run,m1,b,judy,adjudication,partial,1,,`));

    const cal = (humans: string) => runCli(['calibrate', '--run', 'cli-run', '--judge', 'j1', '--scale', 'verdict', '--humans', humans, '--json'], { env }).json();
    const adjudicated = cal('adjudicated');
    expect(adjudicated.humans).toEqual(['adjudicated']);
    // j1 says correct everywhere: 3 of the 4 units agree with the reference (q0/b is now partial).
    expect(adjudicated.judgeReports[0].vsMajority).toMatchObject({ n: 4, agreement: 0.75 });
    expect(cal('majority').judgeReports[0].vsMajority).toMatchObject({ n: 3, agreement: 1 });
    expect(cal('each').humans).toEqual(['ann', 'bea']);
    expect(runCli(['calibrate', '--run', 'cli-run', '--judge', 'j1', '--scale', 'verdict', '--humans', 'some'], { env }).code).toBe(2);
  }, 300_000);
});
