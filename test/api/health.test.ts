import { expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { databaseHealth } from '../../src/api/routes/health.ts';
import { describeDb } from '../helpers/db.ts';

it('/health names the engine, not the driver: a PGlite directory reached through its owner is pglite', () => {
  expect(databaseHealth({ kind: 'pglite' })).toEqual({ database: 'pglite', connection: 'in-process' });
  expect(databaseHealth({ kind: 'postgres', pgliteDir: '/data' })).toEqual({ database: 'pglite', connection: 'owner-socket' });
  expect(databaseHealth({ kind: 'postgres' })).toEqual({ database: 'postgres', connection: 'server' });
});

describeDb('GET /health', (ctx) => {
  it('answers with the engine and connection of the database it serves', async () => {
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: 1 << 20, rateLimitPerMinute: 1000 }, log: () => {} });
    const res = await app.request('http://127.0.0.1/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', ...(ctx.url ? { database: 'postgres', connection: 'server' } : { database: 'pglite', connection: 'in-process' }) });
  });
});
