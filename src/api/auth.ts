import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AssayError } from '../domain/errors.ts';
import type { AppEnv, KeyVerifier } from './context.ts';
import type { FixedWindowLimiter } from './rate-limit.ts';
import { grants, type RouteScope } from './scopes.ts';

const UNAUTHORIZED = 'missing, unknown or revoked API key (send Authorization: Bearer <key>)';

/**
 * Authentication, then the per-key rate limit, then the scope check, then the body limit: nothing of
 * an unauthenticated request's body is read or buffered. Unknown and revoked keys get the same 401.
 */
export function guard(opts: { verifyKey: KeyVerifier; limiter: FixedWindowLimiter; bodyLimitBytes: number }) {
  const tooLarge = () => new AssayError('payload_too_large', `request body exceeds the limit of ${opts.bodyLimitBytes} bytes`);
  // hono's bodyLimit counts a streamed body chunk by chunk; it is needed only when no Content-Length
  // bounds the body (chunked uploads). Node's parser never delivers more than Content-Length bytes,
  // so a declared length is checked from the header alone, which keeps the adapter's fast body path.
  const streamingLimit = bodyLimit({
    maxSize: opts.bodyLimitBytes,
    onError: () => {
      throw tooLarge();
    },
  }) as MiddlewareHandler<AppEnv>;
  const limitBody: MiddlewareHandler<AppEnv> = async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    // Pages run the edge check (input-guard.ts) first; it has read the whole body under this same
    // limit, and a consumed stream cannot be counted again.
    if (c.req.raw.bodyUsed) return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number(length) > opts.bodyLimitBytes) throw tooLarge();
      return next();
    }
    return streamingLimit(c, next);
  };
  return (scope: RouteScope): MiddlewareHandler<AppEnv>[] => {
    if (scope === 'public') return [];
    const authorize: MiddlewareHandler<AppEnv> = async (c, next) => {
      const header = c.req.header('authorization') ?? '';
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const caller = m ? await opts.verifyKey(m[1]!) : null;
      if (!caller) {
        c.header('WWW-Authenticate', 'Bearer');
        throw new AssayError('unauthorized', UNAUTHORIZED);
      }
      opts.limiter.hit(caller.prefix);
      if (!grants(caller.scopes, scope)) {
        throw new AssayError('forbidden', `this route needs the '${scope}' scope; the key has ${caller.scopes.join(', ')}`);
      }
      c.set('caller', caller);
      await next();
    };
    return [authorize, limitBody];
  };
}
