import { OpenAPIHono } from '@hono/zod-openapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { guard } from '../../src/api/auth.ts';
import type { AppEnv } from '../../src/api/context.ts';
import type { Api } from '../../src/api/define-route.ts';
import { onError, validationHook } from '../../src/api/errors.ts';
import { FixedWindowLimiter } from '../../src/api/rate-limit.ts';
import { registerGrades } from '../../src/api/routes/grades.ts';
import { createKey, keyVerifier } from '../../src/services/keys.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { farmyardAnswer, fullVerdicts } from './harness.ts';
import { importParsedRubrics } from '../../src/services/rubrics.ts';
import { farmyard } from './harness.ts';

/**
 * POST /api/grades, mounted the way createApp mounts every route module (the route table in
 * src/api/routes/index.ts is the API engineer's file; this test mounts the module on its own).
 */
describeDb('POST /api/grades', (ctx) => {
  let fake: FakeProvider;
  let app: OpenAPIHono<AppEnv>;
  let writeKey = '';
  let readKey = '';
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [{ kind: 'verdicts', output: fullVerdicts() }] });
    app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
    const deps = { database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 1000, openaiApiKey: 'sk-fake', openaiBaseUrl: fake.openaiBaseUrl }, log: () => {} };
    const api: Api = { app, deps, guard: guard({ verifyKey: keyVerifier(ctx.database), limiter: new FixedWindowLimiter(1000, 60_000), bodyLimitBytes: 1 << 20 }) };
    app.onError((err, c) => onError(err, c, () => {}));
    registerGrades(api);
    writeKey = (await createKey(ctx.database, { scopes: ['write'], name: 'w' })).key;
    readKey = (await createKey(ctx.database, { scopes: ['read'], name: 'r' })).key;
    await importParsedRubrics(ctx.database, [farmyard]);
  });
  afterAll(async () => {
    await fake.close();
  });
  const post = (key: string | null, body: unknown) =>
    app.request('/api/grades', { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });

  it('grades answer text against a stored rubric with the default judge (OpenAI key set → gpt)', async () => {
    const r = await post(writeKey, { answer: farmyardAnswer, rubric: 'farmyard-54' });
    expect(r.status).toBe(200);
    const g = (await r.json()) as any;
    expect(g.status).toBe('ok');
    expect(g.judge.id).toBe('gpt');
    expect([g.completeness, g.correctness, g.f1].map((x: number) => x.toFixed(4))).toEqual(['0.5814', '0.7857', '0.6683']);
    expect(fake.calls).toHaveLength(1);
  });

  it('needs the write scope', async () => {
    expect((await post(null, { answer: 'x', rubric: 'farmyard-54' })).status).toBe(401);
    expect((await post(readKey, { answer: 'x', rubric: 'farmyard-54' })).status).toBe(403);
  });

  it('rejects bad bodies and file paths as judges with the envelope', async () => {
    const both = await post(writeKey, { answer: 'x', answerId: 1, rubric: 'farmyard-54' });
    expect(both.status).toBe(400);
    expect(((await both.json()) as any).error.code).toBe('bad_input');
    const path = await post(writeKey, { answer: 'x', rubric: 'farmyard-54', judge: 'claude.yaml' });
    expect(path.status).toBe(400);
    expect(((await path.json()) as any).error.message).toMatch(/not a judge id/);
    const missing = await post(writeKey, { answer: 'x', rubric: 'no-such-rubric' });
    expect(missing.status).toBe(404);
    // Nothing was stored for the rejected requests: the only answer is the graded one.
    expect((await ctx.database.execute('select count(*)::int as n from answers')).rows[0].n).toBe(1);
  });
});
