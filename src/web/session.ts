import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AppEnv } from '../api/context.ts';

/**
 * Browser sessions for the pages: logging in with an API key creates a session held in this process's
 * memory (a restart logs everyone out); the browser only holds a random session id in an HttpOnly,
 * SameSite=Strict cookie. The key itself is re-verified on every request, so revoking it ends the
 * session at once. Each session carries a CSRF token that unsafe requests must echo.
 */

export const SESSION_COOKIE = 'assay_session';
const TTL_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 10_000;

export interface Session {
  id: string;
  /** The API key the annotator logged in with (never sent back to the browser). */
  key: string;
  csrf: string;
  expiresAt: number;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  constructor(private readonly now: () => number = Date.now) {}

  create(key: string): Session {
    if (this.sessions.size >= MAX_SESSIONS) this.sweep();
    // Still full after dropping expired ones: the oldest session goes (Map keeps insertion order).
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const s: Session = { id: randomBytes(32).toString('base64url'), key, csrf: randomBytes(32).toString('base64url'), expiresAt: this.now() + TTL_MS };
    this.sessions.set(s.id, s);
    return s;
  }

  get(id: string | undefined): Session | null {
    if (!id) return null;
    const s = this.sessions.get(id);
    if (!s) return null;
    if (s.expiresAt <= this.now()) {
      this.sessions.delete(id);
      return null;
    }
    return s;
  }

  fromRequest(c: Context): Session | null {
    return this.get(getCookie(c, SESSION_COOKIE));
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }

  private sweep(): void {
    const t = this.now();
    for (const [id, s] of this.sessions) if (s.expiresAt <= t) this.sessions.delete(id);
  }
}

export function sameToken(a: string | undefined | null, b: string): boolean {
  if (typeof a !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function sessionCookie(c: Context, value: string, maxAgeSeconds: number): string {
  // Behind a TLS-terminating proxy the server sees http, but the browser is on the https public origin.
  const publicOrigin = (c as Context<AppEnv>).get('publicOrigin');
  const secure = new URL(c.req.url).protocol === 'https:' || publicOrigin?.startsWith('https:') ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

export const SESSION_MAX_AGE_SECONDS = TTL_MS / 1000;
