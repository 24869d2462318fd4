import type { Context, MiddlewareHandler, Next } from 'hono';
import type { AppEnv, Caller, KeyVerifier } from '../api/context.ts';
import type { Api } from '../api/define-route.ts';
import { grants, type RouteScope } from '../api/scopes.ts';
import { AssayError } from '../domain/errors.ts';
import { sameToken, type Session, type SessionStore } from './session.ts';

/**
 * Access to pages: a page needs its scope, granted either by a session (login with an API key) or by
 * an `Authorization: Bearer` key exactly as the API checks it (scripts and tests). A browser without
 * either is sent to the login page; any other client gets the API's 401 envelope. Unsafe methods on a
 * session must carry the session's CSRF token and, when the browser sends one, a same-origin Origin.
 */

export interface PageAuth {
  sessions: SessionStore;
  verifyKey: KeyVerifier;
}

export const wantsHtml = (c: Context): boolean => /\btext\/html\b/i.test(c.req.header('accept') ?? '');

/** The caller behind this request's session, or null (unknown, expired or revoked key). */
export async function sessionCaller(auth: PageAuth, c: Context): Promise<{ session: Session; caller: Caller } | null> {
  const session = auth.sessions.fromRequest(c);
  if (!session) return null;
  const caller = await auth.verifyKey(session.key);
  if (!caller) {
    auth.sessions.delete(session.id);
    return null;
  }
  return { session, caller };
}

export function sameOrigin(c: Context): boolean {
  const origin = c.req.header('origin');
  if (!origin) return true;
  return origin === new URL(c.req.url).origin;
}

export function checkCsrf(c: Context, session: Session, formToken?: string): void {
  if (!sameOrigin(c)) throw new AssayError('forbidden', 'cross-origin request refused');
  if (!sameToken(c.req.header('x-csrf-token') ?? formToken, session.csrf)) {
    throw new AssayError('forbidden', 'missing or stale CSRF token: reload the page');
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function pageGuard(api: Api, auth: PageAuth, scope: RouteScope): MiddlewareHandler<AppEnv>[] {
  if (scope === 'public') return [];
  const bearer = api.guard(scope);
  const viaBearer = async (c: Context<AppEnv>, next: Next, i = 0): Promise<void> => {
    const mw = bearer[i];
    if (!mw) return next();
    await mw(c, () => viaBearer(c, next, i + 1));
  };
  const guard: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (!c.req.header('authorization')) {
      const s = await sessionCaller(auth, c);
      if (s) {
        if (!grants(s.caller.scopes, scope)) {
          throw new AssayError('forbidden', `this page needs the '${scope}' scope; you are logged in with a key that has ${s.caller.scopes.join(', ')}`);
        }
        // JSON bodies are checked here; form posts read their token from the body in the handler.
        if (UNSAFE.has(c.req.method) && !/form/i.test(c.req.header('content-type') ?? '')) checkCsrf(c, s.session);
        c.set('caller', s.caller);
        return next();
      }
      if (wantsHtml(c) && c.req.method === 'GET') {
        const url = new URL(c.req.url);
        return c.redirect(`/login?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
      }
    }
    await viaBearer(c, next);
  };
  return [guard];
}
