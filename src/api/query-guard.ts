import type { MiddlewareHandler } from 'hono';
import { badInput } from '../domain/errors.ts';
import type { AppEnv } from './context.ts';

/**
 * Refuses a query parameter the operation does not declare. zod objects strip unknown keys, so without
 * this a typo (`?rn=mine` for `?run=mine`, `?judeg=x`) was dropped and the request ran on defaults —
 * 200 and a wrong result. The allowed names come from the route's own `request.query` schema, so the
 * check cannot drift from the OpenAPI document, and every route registered through defineRoute has it.
 */

interface ObjectLike {
  shape: Record<string, unknown>;
  _zod: { def: { catchall?: { _zod: { def: { type: string } } } } };
}

const isObjectSchema = (s: unknown): s is ObjectLike =>
  typeof s === 'object' && s !== null && 'shape' in s && typeof (s as ObjectLike).shape === 'object' && '_zod' in s;

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 60)}…` : s);

/**
 * The names a query schema declares, or null when it takes any (a loose object). A query schema that is
 * not a z.object is refused when the route is defined: its names could not be read, so nothing would
 * be checked.
 */
export function declaredQueryNames(schema: unknown, route: string): readonly string[] | null {
  if (schema === undefined) return [];
  if (!isObjectSchema(schema)) throw new Error(`route ${route}: request.query must be a z.object (its names are the parameters the route accepts)`);
  const catchall = schema._zod.def.catchall?._zod.def.type;
  if (catchall !== undefined && catchall !== 'never') return null;
  return Object.keys(schema.shape);
}

/** A field's own type under optional/nullable/default wrappers (zod 4 keeps the inner schema in def.innerType). */
function baseType(field: unknown): string | undefined {
  let s = field as { _zod?: { def: { type: string; innerType?: unknown } } } | undefined;
  while (s?._zod && ['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch'].includes(s._zod.def.type)) s = s._zod.def.innerType as typeof s;
  return s?._zod?.def.type;
}

/** The declared names that take several values (an array field): only they may be given more than once. */
export function repeatableQueryNames(schema: unknown): readonly string[] {
  if (!isObjectSchema(schema)) return [];
  return Object.entries(schema.shape)
    .filter(([, f]) => baseType(f) === 'array')
    .map(([n]) => n);
}

/**
 * Refuses the query of `url` when it holds a name outside `names` (null: any name) or gives a name not in
 * `repeatable` more than once; `takes` ends the message (what the operation or page accepts). The API's
 * operations and the server-rendered pages (src/web/page-query.ts) share it, so both refuse alike.
 */
export function checkQueryNames(url: string, names: readonly string[] | null, repeatable: readonly string[], takes: string): void {
  const q = url.indexOf('?');
  if (q < 0) return;
  // The edge check (input-guard.ts) ran first, so every name here decodes strictly.
  const keys = [...new URLSearchParams(url.slice(q + 1).split('#')[0]).keys()];
  if (names !== null) {
    const allowed = new Set(names);
    const unknown = [...new Set(keys)].filter((n) => !allowed.has(n));
    if (unknown.length === 1) throw badInput(`unknown query parameter '${clip(unknown[0]!)}' (${takes})`);
    if (unknown.length > 1) throw badInput(`unknown query parameters ${unknown.slice(0, 5).map((n) => `'${clip(n)}'`).join(', ')}${unknown.length > 5 ? ', …' : ''} (${takes})`);
  }
  const several = new Set(repeatable);
  const seen = new Set<string>();
  for (const n of keys) {
    if (seen.has(n) && !several.has(n)) throw badInput(`query parameter '${clip(n)}' is given more than once; it takes one value`);
    seen.add(n);
  }
}

/**
 * The middleware for one route; `names` as declaredQueryNames returns them. A one-value parameter given
 * twice (`?run=a&run=b`) is refused too: the validator would keep one of them without a word.
 */
export function queryGuard(names: readonly string[] | null, repeatable: readonly string[] = []): MiddlewareHandler<AppEnv> {
  const takes = names && names.length > 0 ? `this operation takes: ${names.join(', ')}` : 'this operation takes no query parameters';
  return async (c, next) => {
    checkQueryNames(c.req.url, names, repeatable, takes);
    await next();
  };
}
