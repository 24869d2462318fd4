import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApi } from './api/app.ts';
import type { AppDeps, AppEnv } from './api/context.ts';
import { registerWeb } from './web/index.tsx';

/**
 * The HTTP app that `npm start` and `assay serve` listen with: the API (src/api) with the
 * server-rendered pages (src/web) mounted on its plumbing. Composing them here keeps one direction:
 * web/ builds on api/ (its guard, route registry, error envelope), api/ never imports web/.
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  return createApi(deps, [registerWeb]);
}
