import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp } from '../../src/app.ts';
import type { AppEnv } from '../../src/api/context.ts';
import { createKey } from '../../src/services/keys.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { seedRun, VERDICTS } from '../jobs/helpers.ts';

/**
 * The gpt judge's row holds the template text it first graded with. When that text is not the template
 * as read now (judges/prompts/rubric-v1.md edited in place: same path, same config hash), POST /api/grades
 * and POST /api/runs/{id}/grade answer 409 and write nothing; a row without the text (older rows) grades.
 */
describeDb('grading with a judge whose template changed (API)', (ctx) => {
  let fake: FakeProvider;
  let app: OpenAPIHono<AppEnv>;
  let key = '';
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [VERDICTS] });
    app = createApp({
      database: ctx.database,
      config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000, openaiApiKey: 'sk-fake', openaiBaseUrl: fake.openaiBaseUrl },
      log: () => {},
    });
    key = (await createKey(ctx.database, { scopes: ['write'], name: 'w' })).key;
  }, 60_000);
  afterAll(async () => {
    await fake?.close();
  });
  const post = (path: string, body: unknown) =>
    Promise.resolve(app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) }));
  const counts = async () => {
    const out: Record<string, number> = {};
    for (const t of ['judges', 'grades', 'usage_ledger', 'judge_cache', 'grading_runs', 'answers']) out[t] = Number((await ctx.database.execute(`select count(*)::int as n from ${t}`)).rows[0].n);
    return out;
  };
  const setPromptText = (text: string | null) =>
    ctx.database.execute(`update judges set config = jsonb_set(config, '{promptText}', $1::jsonb) where slug = 'gpt'`, [JSON.stringify(text)]);

  it('answers 409 with the envelope naming judge and template, and writes nothing; a row without the text grades', async () => {
    const { runId, answerIds } = await seedRun(ctx.database, 'api-tpl', 2);
    const first = await post('/api/grades', { answerId: answerIds[0], judge: 'gpt' });
    expect(first.status).toBe(200);
    expect(fake.calls).toHaveLength(1);
    // The template as this configuration first graded with it, before an edit in place.
    await setPromptText('You are a grader. (the earlier text of the template)\n');
    const before = await counts();

    const grade = await post('/api/grades', { answerId: answerIds[1], judge: 'gpt' });
    expect(grade.status).toBe(409);
    const body = (await grade.json()) as { error: { code: string; message: string } };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toBe('conflict');
    expect(body.error.message).toMatch(/^judge gpt: /);
    expect(body.error.message).toMatch(/prompts[\\/]rubric-v1\.md/);
    expect(body.error.message).toMatch(/changed since this configuration first graded/);
    expect(body.error.message).toMatch(/mix/);
    expect(body.error.message).toMatch(/new id.*restore the template/);
    const text = await post('/api/grades', { answer: 'a barn, two cows and a tractor', rubric: 'farmyard-54', judge: 'gpt' });
    expect(text.status).toBe(409);
    const enqueue = await post(`/api/runs/${runId}/grade`, { judge: 'gpt' });
    expect(enqueue.status).toBe(409);
    expect(((await enqueue.json()) as { error: { message: string } }).error.message).toBe(body.error.message);
    expect(fake.calls).toHaveLength(1);
    expect(await counts()).toEqual(before);

    // An older row that never stored the template's text is not refused.
    await setPromptText(null);
    const older = await post('/api/grades', { answerId: answerIds[1], judge: 'gpt' });
    expect(older.status).toBe(200);
    expect(fake.calls).toHaveLength(2);
  }, 120_000);
});
