import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../api/context.ts';
import { routeRegistry, type Api } from '../api/define-route.ts';
import { inputGuardFor } from '../api/input-guard.ts';
import { grants, type RouteScope } from '../api/scopes.ts';
import { keyVerifier } from '../services/keys.ts';
import { providerKeys } from '../config.ts';
import { defaultJudge } from '../services/grading/default-judge.ts';
import { pageGuard, sessionCaller, type PageAuth } from './guard.ts';
import { registerAnnotationPages } from './pages/annotate.tsx';
import { registerAnswerPages } from './pages/answers.tsx';
import { registerCampaignPages } from './pages/campaigns.tsx';
import { registerAuthPages } from './pages/login.tsx';
import { registerReportPages } from './pages/reports.tsx';
import { pageParams, pageQueries, pageQueryCheck, type PageParams, type QueryDecl } from './page-query.ts';
import { pageError, type PageFrame } from './respond.tsx';
import { SessionStore } from './session.ts';
import { registerStatic } from './static.ts';

/**
 * The server-rendered pages, mounted on the API's app by src/app.ts (api/ never imports web/). Every
 * page route is recorded in the API's route registry with its scope (the security test fails on
 * unclassified routes). Read pages are public when the server listens on loopback (the `npm start`
 * default: only this machine can reach them) and need a `read` key otherwise; annotation always needs
 * an `annotate` key.
 */

export interface Web {
  api: Api;
  auth: PageAuth;
  /** Scope of the report pages: 'public' on loopback, 'read' otherwise. */
  readScope: RouteScope;
  judge: string;
  /** A page route: its scope, the query parameters it reads (page-query.ts; any other is refused) and its handler, which gets that query. */
  page(method: 'GET' | 'POST' | 'PUT', path: string, scope: RouteScope, query: QueryDecl, handler: PageHandler): void;
  frame(c: Context): Promise<PageFrame>;
}

export type PageHandler = (c: Context<AppEnv>, q: PageParams) => Response | Promise<Response>;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopbackHost(host: string | undefined): boolean {
  return host === undefined || LOOPBACK.has(host) || /^127\./.test(host);
}

export function registerWeb(api: Api): void {
  const auth: PageAuth = { sessions: new SessionStore(api.deps.now), verifyKey: api.deps.verifyKey ?? keyVerifier(api.deps.database, api.deps.now) };
  // The footer names the judge that grades when none is named: the same rule as the banner and the commands.
  const judge = defaultJudge(providerKeys(api.deps.config)).description;
  const frame = async (c: Context): Promise<PageFrame> => {
    const s = await sessionCaller(auth, c);
    return { path: c.req.path, judge, user: s ? { name: s.caller.name, csrf: s.session.csrf, ...(grants(s.caller.scopes, 'admin') ? { admin: true } : {}) } : null };
  };
  // Errors become an HTML page for browsers; other clients keep the API's envelope (app.onError).
  const htmlErrors: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next();
    if (c.error) {
      const r = await pageError(c, await frame(c), c.error);
      if (r) c.res = r;
    }
  };
  const web: Web = {
    api,
    auth,
    judge,
    readScope: isLoopbackHost(api.deps.config.host) ? 'public' : 'read',
    frame,
    page(method, path, scope, query, handler) {
      const key = `${method} ${path}`;
      routeRegistry(api.app).set(key, { method, path, scope });
      pageQueries(api.app).set(key, query);
      // The input check runs before the page guard: the CSRF check may read a form body, and the raw
      // bytes must be checked first (bounded by the body limit, as /login's body always was). The query
      // names are checked after the guard, as the API checks them after authentication.
      api.app.on(method, path, htmlErrors, inputGuardFor(api), ...pageGuard(api, auth, scope), pageQueryCheck(query), (c) => handler(c, pageParams(c.req.url, query, key)));
    },
  };
  registerStatic(web);
  registerAuthPages(web);
  registerReportPages(web);
  registerAnswerPages(web);
  registerAnnotationPages(web);
  registerCampaignPages(web);
}
