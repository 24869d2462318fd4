import type { Context } from 'hono';
import { AssayError } from '../../domain/errors.ts';
import { enforceCsrf, requestSource, sessionCaller } from '../guard.ts';
import type { Web } from '../index.tsx';
import { declareQuery, NO_QUERY } from '../page-query.ts';
import { renderHtml } from '../respond.tsx';
import { SESSION_MAX_AGE_SECONDS, sessionCookie } from '../session.ts';

/**
 * Login with an API key (e.g. one created with `assay keys create --scope annotate`): the key is
 * checked like a bearer key and a session cookie is set. Logout ends the session.
 */

/** Stands for this server's origin when resolving `next` (only whether it stays on it matters). */
const HERE = 'http://assay.invalid';
const MAX_NEXT = 2048;

/**
 * Where to go after logging in: only a path on this origin, else '/'. An open redirect through
 * ?next= would send a freshly logged-in annotator to another site. Refused before resolving:
 * anything not starting with exactly one '/', any backslash (browsers read '\' as '/'), any control
 * character or whitespace (a tab is dropped by URL parsers, so '/\t/evil' is '//evil'). What is left
 * is resolved against this origin and must stay on it; the path is returned as the URL parser
 * serialises it (percent-encoded ASCII, fit for a Location header).
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > MAX_NEXT) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || /[\\\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(next)) return '/';
  let url: URL;
  try {
    url = new URL(next, HERE);
  } catch {
    return '/';
  }
  if (url.origin !== HERE || !url.pathname.startsWith('/') || url.pathname.startsWith('//')) return '/';
  return url.pathname + url.search + url.hash;
}

function LoginForm(props: { next: string; error?: string }) {
  return (
    <form method="post" action="/login" class="login">
      {props.error ? (
        <p class="error" role="alert" id="login-error">
          {props.error}
        </p>
      ) : null}
      <p>
        Paste an API key. Annotators use a key with the <code>annotate</code> scope; report pages need <code>read</code> when the server is not on
        loopback. Create one with <code>bin/assay keys create --scope annotate --name alice</code>.
      </p>
      <input type="hidden" name="next" value={props.next} />
      <label for="key">API key</label>
      <input id="key" name="key" type="password" autocomplete="off" required aria-describedby={props.error ? 'login-error' : undefined} />
      <button type="submit">Log in</button>
    </form>
  );
}

/** /login?next=PATH: where the login redirect sends the browser back to (safeNext keeps it on this origin). */
const LOGIN_QUERY = declareQuery(['next']);

export function registerAuthPages(web: Web): void {
  web.page('GET', '/login', 'public', LOGIN_QUERY, async (c, q) => renderHtml(c, await web.frame(c), 'Log in', <LoginForm next={safeNext(q.get('next') ?? undefined)} />));

  // The form's own `next` is a body field, not a query parameter.
  web.page('POST', '/login', 'public', NO_QUERY, async (c) => {
    // Login CSRF (logging a browser into someone else's session): a browser always sends Origin on a
    // POST, so a foreign one is refused; a client sending neither Origin nor Referer is not a browser.
    if (requestSource(c) === 'cross') throw new AssayError('forbidden', 'cross-origin login refused');
    const form = await c.req.parseBody();
    const next = safeNext(form.next);
    const key = typeof form.key === 'string' ? form.key.trim() : '';
    const caller = key ? await web.auth.verifyKey(key) : null;
    if (!caller) {
      return renderHtml(c, await web.frame(c), 'Log in', <LoginForm next={next} error="That key is unknown, revoked or malformed." />, 401);
    }
    const session = web.auth.sessions.create(key);
    c.header('Set-Cookie', sessionCookie(c, session.id, SESSION_MAX_AGE_SECONDS));
    return c.redirect(next, 303);
  });

  web.page('POST', '/logout', 'public', NO_QUERY, async (c: Context) => {
    const s = await sessionCaller(web.auth, c);
    if (s) {
      await enforceCsrf(c, s.session);
      web.auth.sessions.delete(s.session.id);
    }
    c.header('Set-Cookie', sessionCookie(c, '', 0));
    return c.redirect('/', 303);
  });
}
