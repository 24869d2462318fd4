import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../../src/app.ts';
import { gradeAnswer, namedJudge, openJudge } from '../../../src/services/grading/grade-answer.ts';
import { gradesOfAnswer } from '../../../src/services/grading/grade-detail.ts';
import { mulberry32 } from '../../../src/stats/random.ts';
import { type FakeProvider, startFakeProvider } from '../../fake-provider/server.ts';
import { anthropicResponse, openaiResponse, verdictSet } from '../../fake-provider/wire.ts';
import { describeDb } from '../../helpers/db.ts';
import { farmyard, farmyardAnswer } from '../../judges/harness.ts';

/**
 * A panel grade with calls of unknown cost (docs/data-safety.md, "Calls of unknown cost"), against the fake
 * provider and the real SDKs. m-gpt (gpt-4.1) answers with 1000 input + 100 output tokens: $0.0028. m-claude
 * (claude-sonnet-5) is sent and never answered (the fake holds the reply; its 300 ms timeout ends it), then
 * answers with 2000 + 200: $0.006. m-mini (gpt-4.1-mini) answers with no usage block. The panel's cost was
 * null (right) but its meta had no unknownCostCalls, so the page and `assay grade` blamed a missing price.
 * Now: 4 calls, tokens 3000 in / 300 out (the known ones), 2 calls of unknown cost, one timeout and one
 * reply without usage, on the panel's grade as on each member's.
 */
const ids = farmyard.items.map((i) => i.id);
const [a, b] = ids as [string, string];
const verdicts = verdictSet({ [a]: 'correct', [b]: 'partial' }, ['true']);
const MODELS = { 'gpt-4.1': [verdicts], 'gpt-4.1-mini': [verdicts], 'claude-sonnet-5': [{ kind: 'hang' as const }, verdicts] };

describeDb('panel grade with calls of unknown cost', (ctx) => {
  let fake: FakeProvider;
  const dir = mkdtempSync(join(tmpdir(), 'assay-panel-unknown-'));
  const judgeFile = (id: string, provider: string, model: string) =>
    writeFileSync(join(dir, `${id}.yaml`), `id: ${id}\nprovider: ${provider}\nmodel: ${model}\nmode: rubric\nprompt: prompts/rubric-v1.md\nparams: { max_tokens: 2000, temperature: 0, timeout_ms: 300, max_attempts: 2 }\n`);

  beforeAll(async () => {
    fake = await startFakeProvider({
      models: MODELS,
      routes: {
        'POST /v1/chat/completions': (call, step, c) => {
          const r = openaiResponse(step(), call, c.cache);
          const body = r.body as { usage?: unknown };
          if (r.status === 200) {
            if (call.body.model === 'gpt-4.1-mini') delete body.usage;
            else body.usage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };
          }
          return r;
        },
        'POST /v1/messages': (call, step, c) => {
          const r = anthropicResponse(step(), call, c.cache);
          if (r.status === 200) (r.body as { usage?: unknown }).usage = { input_tokens: 2000, output_tokens: 200, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
          return r;
        },
      },
    });
    judgeFile('u-gpt', 'openai', 'gpt-4.1');
    judgeFile('u-mini', 'openai', 'gpt-4.1-mini');
    judgeFile('u-claude', 'anthropic', 'claude-sonnet-5');
    writeFileSync(join(dir, 'u-panel.yaml'), 'id: u-panel\nprovider: panel\nmembers: [u-gpt, u-claude, u-mini]\nvote: majority\n');
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the panel grade counts its members’ calls of unknown cost and why; the grade page says so', async () => {
    const keys = { anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url, openaiApiKey: 'sk', openaiBaseUrl: fake.openaiBaseUrl };
    const judge = await openJudge(namedJudge(join(dir, 'u-panel.yaml'), keys, { from: 'local' }), keys);
    const g = await gradeAnswer(ctx.database, { judge, engine: { sleep: async () => {}, random: mulberry32(1) }, rubric: farmyard, answer: { text: farmyardAnswer, run: 'panel-unknown' } });
    expect(fake.calls).toHaveLength(4);
    expect(g.status).toBe('ok');
    expect(g.usage).toMatchObject({ calls: 4, input: 3000, output: 300, cacheRead: 0, cacheWrite: 0, costUsd: null });
    expect(g.meta).toMatchObject({ unknownCostCalls: 2, unknownCostReasons: { timeout: 1, no_usage: 1 } });

    const stored = await gradesOfAnswer(ctx.database, g.answerId);
    const by = (id: string) => stored.find((s) => s.grade.judge.id === id)!.grade;
    expect([by('u-gpt'), by('u-claude'), by('u-mini')].map((m) => [m.usage.costUsd, m.meta.unknownCostCalls ?? 0, m.meta.unknownCostReasons ?? null])).toEqual([
      [0.0028, 0, null],
      [null, 1, { timeout: 1 }],
      [null, 1, { no_usage: 1 }],
    ]);
    // The stored panel grade is the one returned (meta included).
    expect(by('u-panel').meta).toMatchObject({ unknownCostCalls: 2, unknownCostReasons: { timeout: 1, no_usage: 1 } });

    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000 }, log: () => {} });
    const html = await (await app.request(`/answers/${g.answerId}`)).text();
    const section = (id: string) => html.slice(html.indexOf(`aria-label="Grade by ${id}"`)).split('</section>')[0]!;
    const facts = (id: string) => section(id).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(facts('u-panel')).toContain('Tokens at least 3,000 in, 300 out Cost unknown: 1 call sent and not answered (timeout); 1 reply reported no usage');
    expect(facts('u-claude')).toContain('Tokens at least 2,000 in, 200 out Cost unknown: 1 call sent and not answered (timeout)');
    expect(facts('u-mini')).toContain('Cost unknown: 1 reply reported no usage');
    expect(facts('u-gpt')).toContain('Cost $0.00280');
  }, 120_000);
});
