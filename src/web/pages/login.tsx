import type { Context } from 'hono';
import { AssayError } from '../../domain/errors.ts';
import { checkCsrf, sameOrigin, sessionCaller } from '../guard.ts';
import type { Web } from '../index.tsx';
import { renderHtml } from '../respond.tsx';
import { SESSION_MAX_AGE_SECONDS, sessionCookie } from '../session.ts';

/**
 * Login with an API key (e.g. one created with `assay keys create --scope annotate`): the key is
 * checked like a bearer key and a session cookie is set. Logout ends the session.
 */

/** Only same-site paths: an open redirect through ?next= would hand the session to another site. */
export const safeNext = (next: unknown): string => (typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/');

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

export function registerAuthPages(web: Web): void {
  web.page('GET', '/login', 'public', async (c) => renderHtml(c, await web.frame(c), 'Log in', <LoginForm next={safeNext(c.req.query('next'))} />));

  web.page('POST', '/login', 'public', async (c) => {
    if (!sameOrigin(c)) throw new AssayError('forbidden', 'cross-origin login refused');
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

  web.page('POST', '/logout', 'public', async (c: Context) => {
    const s = await sessionCaller(web.auth, c);
    if (s) {
      const form = await c.req.parseBody();
      checkCsrf(c, s.session, typeof form._csrf === 'string' ? form._csrf : undefined);
      web.auth.sessions.delete(s.session.id);
    }
    c.header('Set-Cookie', sessionCookie(c, '', 0));
    return c.redirect('/', 303);
  });
}
