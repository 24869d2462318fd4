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
 * session must carry the session's CSRF token and come from this origin (checkCsrf). Bearer requests
 * are not cookie-authenticated (a browser never adds the header on its own), so they need no token.
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

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const isUnsafeMethod = (method: string): boolean => UNSAFE.has(method.toUpperCase());

/**
 * Where the request comes from, per OWASP: the Origin header, or the Referer's origin when a browser
 * sent no Origin. 'absent' when neither is there (a client that is not a browser); `Origin: null`
 * (sandboxed frames, privacy redirects) and an unparsable Referer count as cross-origin.
 */
export function requestSource(c: Context): 'same' | 'cross' | 'absent' {
  // Behind a proxy the browser's origin is the public one (ASSAY_PUBLIC_ORIGIN), not the URL the server sees.
  const publicOrigin = (c as Context<AppEnv>).get('publicOrigin');
  const own = (o: string) => o === new URL(c.req.url).origin || (publicOrigin !== undefined && o === publicOrigin);
  const origin = c.req.header('origin');
  if (origin !== undefined) return own(origin) ? 'same' : 'cross';
  const referer = c.req.header('referer');
  if (referer === undefined) return 'absent';
  try {
    return own(new URL(referer).origin) ? 'same' : 'cross';
  } catch {
    return 'cross';
  }
}

/**
 * The CSRF rule for a request carrying a session cookie: a same-origin Origin (or Referer) must be
 * present, and the session's token must be echoed (X-CSRF-Token, or the `_csrf` field of a form).
 * Whatever the Content-Type says.
 */
export function checkCsrf(c: Context, session: Session, formToken?: string): void {
  if (requestSource(c) !== 'same') throw new AssayError('forbidden', 'cross-origin request refused (a same-origin Origin or Referer header is required)');
  if (!sameToken(c.req.header('x-csrf-token') ?? formToken, session.csrf)) {
    throw new AssayError('forbidden', 'missing or stale CSRF token: reload the page');
  }
}

/** Media types a browser form can send; only these are read for a `_csrf` field. */
const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data']);

/**
 * checkCsrf with the token looked up: the header first; otherwise, for a form body, its `_csrf`
 * field (hono caches the parsed body, so the handler reads the same form). Any other body without
 * the header is refused, so a mislabelled body cannot skip the check.
 */
export async function enforceCsrf(c: Context, session: Session): Promise<void> {
  let formToken: string | undefined;
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (c.req.header('x-csrf-token') === undefined && requestSource(c) === 'same' && FORM_TYPES.has(type)) {
    // A malformed form just has no token.
    const form: Record<string, unknown> = await c.req.parseBody().catch(() => ({}));
    const t = form._csrf;
    formToken = typeof t === 'string' ? t : undefined;
  }
  checkCsrf(c, session, formToken);
}

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
        c.set('caller', s.caller);
        // Every unsafe method on a session, whatever its Content-Type. The body (a form's token) was
        // already read under the body limit by the edge check (src/api/input-guard.ts).
        if (isUnsafeMethod(c.req.method)) await enforceCsrf(c, s.session);
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
