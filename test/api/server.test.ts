import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { createKey } from '../../src/services/keys.ts';
import { describeDb, rowCounts } from '../helpers/db.ts';

/** Through the real Node server: limits must hold for Content-Length and for chunked bodies alike. */

const LIMIT = 4096;

/** Raw HTTP so the test controls framing exactly (Content-Length vs Transfer-Encoding: chunked). */
function send(url: string, opts: { key: string; chunks: string[]; chunked: boolean; path: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const total = opts.chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
    const req = httpRequest(`${url}${opts.path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${opts.key}`,
        'content-type': 'application/x-ndjson',
        ...(opts.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(total) }),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The server may answer 413 and close before the upload ends; the response is what counts.
    req.on('error', (e) => (e as NodeJS.ErrnoException).code === 'EPIPE' || (e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e));
    (async () => {
      for (const c of opts.chunks) {
        if (!req.write(c)) await new Promise((r) => req.once('drain', r));
        await new Promise((r) => setImmediate(r));
      }
      req.end();
    })().catch(() => {});
  });
}

const line = (i: number, pad = 0) => JSON.stringify({ id: `s${i}`, task: 'describe', rubric: 'r1', text: 'x'.repeat(pad) }) + '\n';

describeDb('real server: body limit and chunked uploads', (ctx) => {
  let server: RunningServer;
  let key: string;
  beforeAll(async () => {
    const app = createApp({ database: ctx.database, config: { bodyLimitBytes: LIMIT, rateLimitPerMinute: 10_000 }, log: () => {} });
    server = await listen(app.fetch, '127.0.0.1', 0);
    key = (await createKey(ctx.database, { scopes: ['write'] })).key;
    await ctx.database.execute(
      `insert into rubrics (slug, title) values ('r1', 'R1')`,
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  it('accepts an upload under the limit, sent chunked', async () => {
    const r = await send(server.url, { key, path: '/api/answers?run=ok&model=m', chunked: true, chunks: [line(1), line(2)] });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ imported: 2 });
  });

  it('rejects a Content-Length body over the limit with 413 and stores nothing', async () => {
    const before = await rowCounts(ctx.database);
    const chunks = Array.from({ length: 10 }, (_, i) => line(100 + i, 500));
    expect(chunks.join('').length).toBeGreaterThan(LIMIT);
    const r = await send(server.url, { key, path: '/api/answers?run=big&model=m', chunked: false, chunks });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toEqual({ error: { code: 'payload_too_large', message: `request body exceeds the limit of ${LIMIT} bytes` } });
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('rejects a chunked body that grows past the limit with 413 and stores nothing', async () => {
    const before = await rowCounts(ctx.database);
    const chunks = Array.from({ length: 10 }, (_, i) => line(200 + i, 500));
    const r = await send(server.url, { key, path: '/api/answers?run=big2&model=m', chunked: true, chunks });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error.code).toBe('payload_too_large');
    expect(await rowCounts(ctx.database)).toEqual(before);
  });

  it('still serves after the rejections (the connection handling is sound)', async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
  });
});
