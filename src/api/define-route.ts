import type { OpenAPIHono, RouteConfig, RouteHandler } from '@hono/zod-openapi';
import type { Handler, MiddlewareHandler } from 'hono';
import type { AppDeps, AppEnv } from './context.ts';
import { inputGuardFor } from './input-guard.ts';
import { declaredQueryNames, queryGuard, repeatableQueryNames } from './query-guard.ts';
import type { RouteScope } from './scopes.ts';

/**
 * Every route is registered through defineRoute, which records its scope. The security test walks
 * hono's `app.routes` and fails on any route absent from this registry, so a route cannot ship
 * without an explicit access decision.
 */
export interface Api {
  app: OpenAPIHono<AppEnv>;
  deps: AppDeps;
  /** Middleware enforcing a scope (authentication, rate limit, body limit); [] for public routes. */
  guard(scope: RouteScope): MiddlewareHandler<AppEnv>[];
}

export interface RouteEntry {
  method: string;
  /** hono path syntax (":id"), as in app.routes. */
  path: string;
  scope: RouteScope;
}

const registries = new WeakMap<object, Map<string, RouteEntry>>();
const middlewareHandlers = new WeakSet<object>();

const keyOf = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

export function routeRegistry(app: object): Map<string, RouteEntry> {
  let r = registries.get(app);
  if (!r) registries.set(app, (r = new Map()));
  return r;
}

/** The scope a registered route requires, or undefined when it was never classified. */
export function scopeOf(app: object, method: string, path: string): RouteScope | undefined {
  return routeRegistry(app).get(keyOf(method, path))?.scope;
}

/**
 * Marks an app-wide middleware (app.use) so the security test can tell it from a route: hono records
 * app.use('*', mw) and app.all('*', h) alike in app.routes, so the handler's identity is the only mark
 * that exempts the host check without exempting an unguarded catch-all route.
 */
export function markMiddleware<T extends object>(mw: T): T {
  middlewareHandlers.add(mw);
  return mw;
}
export const isMarkedMiddleware = (h: object): boolean => middlewareHandlers.has(h);

type ApiHandler<R extends RouteConfig> = (c: Parameters<RouteHandler<R, AppEnv>>[0]) => Response | Promise<Response>;

/** API routes live under /api so the server-rendered pages can own the rest of the URL space. */
export const API_PREFIX = '/api/';

export function defineRoute<R extends RouteConfig>(api: Api, def: { scope: RouteScope; route: R; handler: ApiHandler<R> }): void {
  const { route, scope } = def;
  if (scope !== 'public' && !route.path.startsWith(API_PREFIX)) {
    throw new Error(`route ${route.method} ${route.path}: guarded API paths start with ${API_PREFIX}`);
  }
  const path = route.path.replaceAll(/\/{(.+?)}/g, '/:$1');
  const registry = routeRegistry(api.app);
  const key = keyOf(route.method, path);
  if (registry.has(key)) throw new Error(`route ${key} registered twice`);
  const queryNames = declaredQueryNames(route.request?.query, key);
  registry.set(key, { method: route.method.toUpperCase(), path, scope });
  const security = scope === 'public' ? [] : [{ bearer: [] }];
  const described = {
    ...route,
    security,
    description: `${route.description ?? ''}${route.description ? '\n\n' : ''}Scope: \`${scope}\`.`,
    // Authentication first (no body of an unauthenticated request is read), then the edge input check,
    // then the query names: an undeclared one is refused before any handler or validator runs.
    middleware: [...api.guard(scope), inputGuardFor(api), queryGuard(queryNames, repeatableQueryNames(route.request?.query)), ...(route.middleware ? [route.middleware].flat() : [])],
  };
  api.app.openapi(described as R, def.handler as never);
}

/** A public non-OpenAPI route (docs assets, the spec itself): recorded all the same. */
export function definePlainRoute(api: Api, method: 'GET', path: string, handler: Handler<AppEnv>): void {
  routeRegistry(api.app).set(keyOf(method, path), { method, path, scope: 'public' });
  api.app.get(path, handler);
}
