import { OpenAPIHono } from '@hono/zod-openapi';
import { keyVerifier } from '../services/keys.ts';
import { guard } from './auth.ts';
import type { AppDeps, AppEnv } from './context.ts';
import { definePlainRoute, markMiddleware, type Api } from './define-route.ts';
import { registerDocs } from './docs.ts';
import { envelope, onError, validationHook } from './errors.ts';
import { hostCheck, hostPolicy } from './host-check.ts';
import { FixedWindowLimiter } from './rate-limit.ts';
import { ROUTE_MODULES, type RouteModule } from './routes/index.ts';

export const API_INFO = {
  openapi: '3.1.0',
  info: {
    title: 'assay API',
    version: '0.1.0',
    description:
      'Grade the answers of vision models. Every route except /health, /docs and /openapi.json needs ' +
      '`Authorization: Bearer <key>` (create one with `assay keys create --scope read|write|admin|annotate`). ' +
      'Scopes: admin ⊇ write ⊇ read; annotate is separate. Errors: {"error":{"code","message"}}. ' +
      'List endpoints answer CSV with `Accept: text/csv`.',
  },
};

/**
 * Pure wiring: the Hono app with the API's routes over its dependencies, then `fronts`: route modules
 * of fronts built on the same plumbing (host check, guard, route registry, error envelope). The web
 * pages are one, mounted by src/app.ts, so that api/ never imports web/. Listening is src/server.ts's job.
 */
export function createApi(deps: AppDeps, fronts: readonly RouteModule[] = []): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const log = deps.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const limiter = new FixedWindowLimiter(deps.config.rateLimitPerMinute, 60_000, deps.now);
  const api: Api = {
    app,
    deps,
    guard: guard({
      verifyKey: deps.verifyKey ?? keyVerifier(deps.database, deps.now),
      limiter,
      bodyLimitBytes: deps.config.bodyLimitBytes,
    }),
  };
  app.onError((err, c) => onError(err, c, log));
  // Before every route, /health and /docs included: DNS rebinding must not reach any of them.
  app.use('*', markMiddleware(hostCheck(hostPolicy(deps.config.allowedHosts ?? [], deps.config.host, deps.config.publicOrigin))));
  app.notFound((c) => envelope(c, 'not_found', `no route ${c.req.method} ${c.req.path}`));
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key: assay_<prefix>_<secret>',
  });

  for (const register of [...ROUTE_MODULES, ...fronts]) register(api);
  registerDocs(api);
  definePlainRoute(api, 'GET', '/openapi.json', (c) => c.json(app.getOpenAPI31Document(API_INFO)));
  return app;
}
