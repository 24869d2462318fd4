import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { campaignProgress, createCampaign, saveCampaignLabels } from '../../src/services/campaigns/index.ts';
import { exportRun } from '../../src/services/export/write-export.ts';
import { importRunExport } from '../../src/services/import-run-export.ts';
import { createKey } from '../../src/services/keys.ts';
import { describeDb, openTestDatabase, rowCounts } from '../helpers/db.ts';
import { seedRun } from './export-fixture.ts';

/**
 * campaigns.jsonl of a run export was stored as the file says without reading its spec: a line whose spec
 * has no scales, or says overlap 3 for one annotator, was imported (exit 0, campaigns created 2) and every
 * later read of the campaign (progress, next, labels, export) threw on the stored spec; a line with k = 5
 * beside a spec of k = 1 stored k = 5 for one annotator, a campaign createCampaign refuses. Such a line is
 * refused naming it, nothing written; an unedited export still imports and its campaign reads.
 */

const dir = mkdtempSync(join(tmpdir(), 'assay-export-spec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeDb('run export import: a campaign line against its spec', (ctx) => {
  const out = join(dir, `x-${Math.random().toString(36).slice(2)}`);
  beforeAll(async () => {
    await seedRun(ctx.database);
    await createKey(ctx.database, { scopes: ['annotate'], name: 'carol' });
    const c = await createCampaign(ctx.database, { name: 'real', answers: { run: 'rt-run', task: 'describe' }, scales: { binary: { question: 'ok?' } }, annotators: ['carol'], overlap: 1, order: { disagreementFirst: false, auditShare: 0, seed: 1 } });
    const first = (await ctx.database.execute(`select answer_id from campaign_answers where campaign_id = ${c.id} order by rank limit 1`)).rows[0]!;
    await saveCampaignLabels(ctx.database, { campaign: 'real', answerId: Number(first.answer_id), annotator: 'carol', marks: [{ scale: 'binary', label: true }] });
    await exportRun(ctx.database, { run: 'rt-run', out, now: new Date('2026-12-01T00:00:00Z') });
  }, 60_000);

  const edited = (what: string, edit: (line: Record<string, any>) => void): string => {
    const d = join(dir, `${what}-${Math.random().toString(36).slice(2)}`);
    cpSync(out, d, { recursive: true });
    const lines = readFileSync(join(d, 'campaigns.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    edit(lines.find((l) => l.name === 'real')!);
    writeFileSync(join(d, 'campaigns.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return d;
  };

  it('refuses a spec that does not parse or disagrees with the line, and imports the unedited one', async () => {
    const fresh = await openTestDatabase(ctx.url ? 'postgres' : 'pglite');
    try {
      const cases: Array<[string, (l: Record<string, any>) => void, RegExp]> = [
        ['no scales', (l) => delete l.spec.scales, /campaigns\.jsonl:\d+: campaign 'real': spec: .*scales/],
        ['overlap above its annotators', (l) => (l.spec.overlap = 3), /campaigns\.jsonl:\d+: campaign 'real': spec: .*overlap k = 3 needs at least 3 annotators/],
        ['k beside the spec', (l) => (l.overlap = 5), /campaigns\.jsonl:\d+: campaign 'real': overlap 5, but its spec says 1; nothing written$/],
        ['name beside the spec', (l) => (l.spec.name = 'other'), /campaigns\.jsonl:\d+: campaign 'real': its spec names 'other'; nothing written$/],
        // As createCampaign refuses it: a reference reads digits as the id, so the campaign could not be named.
        ['digits only', (l) => (l.name = l.spec.name = '7'), /campaigns\.jsonl:\d+: campaign '7': name: digits only, which a campaign reference reads as an id; nothing written$/],
      ];
      const before = await rowCounts(fresh.database);
      for (const [what, edit, message] of cases) {
        await expect(importRunExport(fresh.database, edited(what, edit)), what).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(message) });
        expect(await rowCounts(fresh.database), what).toEqual(before);
      }
      await importRunExport(fresh.database, out);
      const [p, source] = [await campaignProgress(fresh.database, 'real'), await campaignProgress(ctx.database, 'real')];
      expect([p.campaign.overlap, p.answers, p.complete]).toEqual([1, source.answers, 1]);
    } finally {
      await fresh.drop();
    }
  }, 120_000);
});
