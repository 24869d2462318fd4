import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { createKey } from '../../src/services/keys.ts';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { describeDb } from '../helpers/db.ts';
import { seedRun, VERDICTS } from '../jobs/helpers.ts';

/**
 * POST /api/grades on an answer with an ok grade, whose judge call fails, answered 200 with the failure
 * and had replaced the ok grade with it. Now the ok grade stays (GET /api/grades/{id} reads it back) and
 * the response says this call failed in meta.lastAttempt.
 */

describeDb('POST /api/grades whose call fails keeps the ok grade', (ctx) => {
  let fake: FakeProvider;
  let key = '';
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    fake = await startFakeProvider({ script: [VERDICTS] });
    app = createApp({
      database: ctx.database,
      config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 100_000, anthropicApiKey: 'sk-ant', anthropicBaseUrl: fake.url },
      log: () => {},
    });
    key = (await createKey(ctx.database, { scopes: ['admin'], name: 'keep-ok' })).key;
  });
  afterAll(async () => {
    await fake.close();
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await app.request(path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    return { status: r.status, body: (await r.json()) as any };
  };

  it('an unparseable reply to a regrade: 200, the ok grade with meta.lastAttempt; the stored grade unchanged', async () => {
    const { answerIds } = await seedRun(ctx.database, 'keep-ok-api', 1);
    const first = await call('POST', '/api/grades', { answerId: answerIds[0], judge: 'claude' });
    expect([first.status, first.body.status]).toEqual([200, 'ok']);
    expect(first.body.f1).toBeGreaterThan(0);
    await ctx.database.execute(`delete from judge_cache`);
    fake.setScript([{ kind: 'text', text: 'Sorry, no verdicts today.' }]);
    const again = await call('POST', '/api/grades', { answerId: answerIds[0], judge: 'claude' });
    expect(again.status).toBe(200);
    expect([again.body.gradeId, again.body.status, again.body.f1, again.body.createdAt]).toEqual([first.body.gradeId, 'ok', first.body.f1, first.body.createdAt]);
    expect(again.body.meta.lastAttempt).toMatchObject({ status: 'parse_failure', reason: expect.any(String) });
    const read = await call('GET', `/api/grades/${first.body.gradeId}`);
    expect(read.body).toEqual(again.body);
  });
});
