import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { gradeAnswer, namedJudge, openJudge } from '../../../src/services/grading/grade-answer.ts';
import { leaderboard } from '../../../src/services/report-leaderboard.ts';
import { mulberry32 } from '../../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../../fake-provider/server.ts';
import { verdictSet } from '../../fake-provider/wire.ts';
import { describeDb } from '../../helpers/db.ts';
import { farmyard, farmyardAnswer } from '../../judges/harness.ts';

/**
 * The leaderboard flags a model of the judge's own family (self-preference). A panel's judges row has as
 * its model its member ids joined by '+' (`m-gpt+m-claude`), which names no model: the family was read from
 * that string's prefix, so a panel of a GPT and a Claude judge flagged neither GPT nor Claude answers (or,
 * with members named `claude+gpt`, only Claude's). A panel is of every family its members' models are of.
 */
describeDb('self-preference of a panel judge', (ctx) => {
  let fake: FakeProvider;
  const dir = mkdtempSync(join(tmpdir(), 'assay-panel-fam-'));
  const judgeFile = (id: string, provider: string, model: string) =>
    writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\nprovider: ${provider}\nmodel: ${model}\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 10000, max_attempts: 2 }\n`);
  beforeAll(async () => {
    const v = verdictSet({ [farmyard.items[0]!.id]: 'correct' }, ['true']);
    fake = await startFakeProvider({ models: { 'gpt-4.1': [v], 'claude-sonnet-5': [v] } });
    judgeFile('m-gpt', 'openai', 'gpt-4.1');
    judgeFile('m-claude', 'anthropic', 'claude-sonnet-5');
    writeFileSync(join(dir, 'p-fam.yaml'), 'id: p-fam\nprovider: panel\nmembers: [m-gpt, m-claude]\n');
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers of a member model’s family are flagged; another family is not', async () => {
    const keys = { anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl };
    const judge = await openJudge(namedJudge(join(dir, 'p-fam.yaml'), keys, { from: 'local' }), keys);
    for (const model of ['gpt-5', 'claude-opus-4', 'gemini-2.5-pro']) {
      const g = await gradeAnswer(ctx.database, { judge, engine: { sleep: async () => {}, random: mulberry32(3) }, rubric: farmyard, answer: { text: `${farmyardAnswer}\n${model}`, run: `fam-${model}`, model } });
      expect(g.status).toBe('ok');
    }
    const lb = await leaderboard(ctx.database, { judge: 'p-fam' });
    expect(lb.judge).toBe('p-fam');
    expect(lb.judgeFamily).toBe('openai+anthropic');
    const flag = (model: string) => lb.rows.filter((r) => r.model === model && !r.baseline).map((r) => r.sameFamilyAsJudge);
    expect(flag('gpt-5').length).toBeGreaterThan(0);
    expect(flag('gpt-5').every(Boolean)).toBe(true);
    expect(flag('claude-opus-4').every(Boolean)).toBe(true);
    expect(flag('gemini-2.5-pro')).toEqual(flag('gemini-2.5-pro').map(() => false));
    expect(flag('gemini-2.5-pro').length).toBeGreaterThan(0);
  }, 120_000);
});
