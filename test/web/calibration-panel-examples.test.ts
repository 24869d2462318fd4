import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { gradeAnswer } from '../../src/services/grading/grade-answer.ts';
import { loadRunCalibration } from '../../src/services/grading/calibration-labels.ts';
import { pagePanelCalibration } from '../../src/services/web-calibration-panel.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { useApi } from '../api/app-fixture.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { anchoredScript, seedAnchored } from '../judges/anchored-fixture.ts';

/**
 * The calibration page's panel section over a panel whose member is anchored (shown e1 and e2 of run anch
 * with the people's verdicts): its figures leave e1 and e2 out, as `assay calibrate --run anch --judge
 * p-anch` does, and the section says so, as that command's text and the page's main report do (docs/judges.md
 * "Excluded from calibration"). Before, the panel and member rows covered x1–x3 only while the section
 * named the run's 5 answers, with no word of the two left out.
 */

const quiet = { sleep: async () => {}, random: mulberry32(3) };
const keysFor = (fake: FakeProvider) => ({ anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl });

describeDb('calibration page: an anchored panel member’s examples', (ctx) => {
  const api = useApi(ctx);
  let fake: FakeProvider;
  const dir = mkdtempSync(join(tmpdir(), 'assay-panel-examples-'));

  beforeAll(async () => {
    fake = await startFakeProvider({ script: anchoredScript });
    const ids = await seedAnchored(ctx.database);
    writeFileSync(
      join(dir, 'anchored.yaml'),
      'id: anchored\nprovider: anthropic\nmodel: claude-sonnet-5\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\nexamples:\n  - { run: anch, answer: e1 }\n  - { run: anch, answer: e2 }\n',
    );
    writeFileSync(join(dir, 'p-anch.yaml'), 'id: p-anch\nprovider: panel\nmembers: [anchored]\n');
    for (const id of ids.values()) await gradeAnswer(ctx.database, { judge: join(dir, 'p-anch.yaml'), keys: keysFor(fake), engine: quiet, answer: { id } });
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts and says the answers left out', async () => {
    const cal = await loadRunCalibration(ctx.database, { run: 'anch', judge: 'p-anch' });
    expect(cal.excludedExamples).toBe(2);
    const p = await pagePanelCalibration(ctx.database, { panel: 'p-anch', run: 'anch' });
    expect(p.reason).toBeUndefined();
    expect(p.excludedExamples).toBe(2);
    // The report's answers keep e1 and e2 (the people's labels stay); the panel's figures are over x1–x3's 6 labelled items.
    expect(p.answers).toBe(5);
    expect(p.vsHumans.map((v) => [v.judge, v.n])).toEqual([['p-anch', 6], ['anchored', 6]]);
    // The reliability caption names the voted items of e1 and e2 among those left out (every item of both grades).
    const items = (await ctx.database.execute(`select coalesce(sum(jsonb_array_length(g.items)), 0)::int as n from grades g join judges j on j.id = g.judge_id join answers a on a.id = g.answer_id where j.slug = 'p-anch' and a.external_id in ('e1', 'e2')`)).rows[0]!.n;
    expect(items).toBeGreaterThan(0);
    expect(p.reliability?.leftOut.examples).toBe(items);
    const res = await api.call(api.keys.read, 'GET', '/calibration?panel=p-anch&run=anch', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = (await res.text()).replace(/<[^>]+>/g, '');
    expect(html).toContain('Excluded examples: 2 answer(s) of the run that a member was shown as examples are left out of the panel’s and its members’ figures');
    expect(html).toContain(`${items} of answers a member was shown as examples`);
  });
});
