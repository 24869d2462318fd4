import type { OpenAPIHono } from '@hono/zod-openapi';
import { beforeAll } from 'vitest';
import { createApp } from '../../src/app.ts';
import type { AppEnv } from '../../src/api/context.ts';
import { createKey, type KeyScope } from '../../src/services/keys.ts';
import type { DbContext } from '../helpers/db.ts';

/** An app over a describeDb database, with one key per scope (and one that was revoked). */
export interface ApiFixture {
  readonly app: OpenAPIHono<AppEnv>;
  readonly keys: Record<KeyScope | 'revoked', string>;
  /** app.request with the bearer header of `key`. */
  call(key: string | null, method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<Response>;
}

export function useApi(ctx: DbContext, config: { bodyLimitBytes?: number; rateLimitPerMinute?: number } = {}): ApiFixture {
  let app: OpenAPIHono<AppEnv> | undefined;
  const keys = {} as Record<KeyScope | 'revoked', string>;
  beforeAll(async () => {
    app = createApp({
      database: ctx.database,
      config: { bodyLimitBytes: config.bodyLimitBytes ?? 10 * 1024 * 1024, rateLimitPerMinute: config.rateLimitPerMinute ?? 100_000 },
      log: () => {},
    });
    for (const s of ['read', 'write', 'admin', 'annotate'] as const) keys[s] = (await createKey(ctx.database, { scopes: [s], name: `test ${s}` })).key;
    const revoked = await createKey(ctx.database, { scopes: ['admin'], name: 'revoked' });
    const { revokeKey } = await import('../../src/services/keys.ts');
    await revokeKey(ctx.database, revoked.prefix);
    keys.revoked = revoked.key;
  });
  return {
    get app() {
      if (!app) throw new Error('app not ready');
      return app;
    },
    keys,
    call(key, method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (key) headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      return Promise.resolve(this.app.request(path, { method, headers, body }));
    },
  };
}
