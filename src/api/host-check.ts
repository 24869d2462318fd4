import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context.ts';
import { envelope } from './errors.ts';
import { canonicalHostName, hostnameOf, isLoopbackName } from '../domain/host-names.ts';

/**
 * The Host check against DNS rebinding: a page of attacker.example whose name is re-pointed at
 * 127.0.0.1 reaches this server with `Host: attacker.example` and would read the open loopback
 * pages. Only loopback names, the configured ASSAY_ALLOWED_HOSTS and the listen host itself are
 * served; anything else gets 400 (the API's envelope, or a plain page for a browser asking for a
 * page) before any route runs. Ports are ignored: the name is what a rebinding attacker controls.
 */

export interface HostPolicy {
  allows(host: string | undefined): boolean;
  /** The configured public origin (ASSAY_PUBLIC_ORIGIN), which counts as this server's own origin. */
  publicOrigin?: string;
}

/**
 * Loopback names, `allowed` (already canonical), `listenHost` when it is not loopback, and the host of
 * `publicOrigin` (the proxy in front forwards that name).
 */
export function hostPolicy(allowed: readonly string[], listenHost: string | undefined, publicOrigin?: string): HostPolicy {
  const names = new Set(allowed);
  for (const h of [listenHost, publicOrigin ? new URL(publicOrigin).hostname : undefined]) {
    const name = h ? canonicalHostName(h) : null;
    if (name) names.add(name);
  }
  return {
    ...(publicOrigin ? { publicOrigin } : {}),
    allows(host) {
      if (host === undefined) return false;
      const name = hostnameOf(host);
      return name !== null && (isLoopbackName(name) || names.has(name));
    },
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function hostCheck(policy: HostPolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // The Host header is what a browser sends; the URL's host differs only for an absolute-form
    // request target (`GET http://x/ HTTP/1.1`), so both must pass.
    const header = c.req.header('host');
    const urlHost = new URL(c.req.url).host;
    const refused = header !== undefined && !policy.allows(header) ? header : !policy.allows(urlHost) ? urlHost : null;
    if (refused === null) {
      if (policy.publicOrigin) c.set('publicOrigin', policy.publicOrigin);
      return next();
    }
    const shown = refused.length > 100 ? `${refused.slice(0, 100)}…` : refused;
    const message = `host '${shown}' is not served here: add its name to ASSAY_ALLOWED_HOSTS (loopback names are always allowed)`;
    const path = c.req.path;
    const page = !path.startsWith('/api/') && path !== '/api' && path !== '/health' && path !== '/openapi.json' && /\btext\/html\b/i.test(c.req.header('accept') ?? '');
    if (!page) return envelope(c, 'bad_input', message, 400, { 'Cache-Control': 'no-store' });
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host not allowed</title></head><body><h1>Host not allowed</h1><p>${escapeHtml(message)}</p></body></html>`;
    return c.body(html, 400, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    });
  };
}
