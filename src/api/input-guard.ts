import type { Context, MiddlewareHandler } from 'hono';
import { AssayError, badInput } from '../domain/errors.ts';
import { decodeUtf8, duplicateKey, jsonPath, parseCheckedJson } from '../domain/json-check.ts';
import { textProblem } from '../domain/limits.ts';
import type { AppEnv } from './context.ts';
import { isAbortedBody } from './errors.ts';

/**
 * The edge check every route and page runs before its handler: what no field of assay may hold is
 * refused here, whatever the route's schema says, so a new route cannot forget it.
 * - path and query: strict percent-decoding (invalid UTF-8 or a stray % is bad input, not kept raw),
 *   no NUL, no lone surrogate;
 * - body (POST/PUT/PATCH/DELETE): at most the body limit, valid UTF-8 (refused, never replaced by
 *   U+FFFD); a JSON body is depth-scanned, parsed once and walked iteratively (nesting, NUL, lone
 *   surrogates, non-finite numbers) before zod or drizzle see it, and a key given twice is refused; a
 *   form's fields are decoded strictly.
 * The raw bytes and the decoded text are left in hono's body cache, so handlers read the same body.
 */

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const JSON_TYPE = /^application\/([\w.-]+\+)?json$/;

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 60)}…` : s);

function strictDecode(part: string, where: string, plusIsSpace: boolean): string {
  let s: string;
  try {
    s = decodeURIComponent(plusIsSpace ? part.replaceAll('+', ' ') : part);
  } catch {
    throw badInput(`${where}: malformed percent-encoding or invalid UTF-8 in '${clip(part)}'`);
  }
  const p = textProblem(s);
  if (p) throw badInput(`${where}: ${p}`);
  return s;
}

/** name=value pairs of a query string or urlencoded form, each part decoded strictly. */
function checkPairs(encoded: string, where: string): void {
  for (const pair of encoded.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = strictDecode(eq < 0 ? pair : pair.slice(0, eq), `${where} (a field name)`, true);
    if (eq >= 0) strictDecode(pair.slice(eq + 1), `${where}.${clip(name)}`, true);
  }
}

function checkUrl(url: string): void {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const q = url.indexOf('?', start);
  const path = q < 0 ? url.slice(start) : url.slice(start, q);
  for (const segment of path.split('/')) strictDecode(segment, 'path', false);
  if (q >= 0) checkPairs(url.slice(q + 1).split('#')[0]!, 'query');
}

const tooLarge = (limit: number) => new AssayError('payload_too_large', `request body exceeds the limit of ${limit} bytes`);

/** The body's bytes, at most `limit` of them; a streamed (chunked) body is counted as it arrives. */
async function readBody(c: Context, limit: number): Promise<Uint8Array> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
  if (Object.keys(c.req.bodyCache).length > 0) return new Uint8Array(await c.req.arrayBuffer());
  const stream = c.req.raw.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((e: unknown) => {
      if (isAbortedBody(e)) throw badInput('body: the request body was cut off before it ended');
      throw e;
    });
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const ch of chunks) {
    bytes.set(ch, at);
    at += ch.length;
  }
  return bytes;
}

async function checkBody(c: Context, limit: number): Promise<void> {
  const bytes = await readBody(c, limit);
  const text = decodeUtf8(bytes, 'body');
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  // hono keeps promises in its body cache (its type says values).
  const cache = c.req.bodyCache as Record<string, unknown>;
  cache.arrayBuffer = Promise.resolve(buffer as ArrayBuffer);
  cache.text = Promise.resolve(text);
  if (text.trim() === '') return;
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  // Paths as the route validators write them: body.items[0].id.
  const where = (at: string, p: string) => `body${at && !at.startsWith('[') ? '.' : ''}${at}: ${p}`;
  if (JSON_TYPE.test(type)) {
    parseCheckedJson(text, 'body', where);
    // JSON.parse would keep one of the two values silently: which one the client meant is unknown.
    const twice = duplicateKey(text);
    if (twice) throw badInput(where(jsonPath(twice.path), 'key given twice (JSON keeps only one of the values; give it once)'));
  }
  else if (type === 'application/x-www-form-urlencoded') checkPairs(text, 'body');
  else if (type === 'multipart/form-data') {
    const form = await c.req.parseBody({ all: true }).catch(() => {
      throw badInput('body: malformed multipart/form-data');
    });
    for (const [name, v] of Object.entries(form)) {
      for (const value of [v].flat()) {
        if (typeof value !== 'string') throw badInput(`body.${clip(name)}: file uploads are not accepted`);
        const p = textProblem(name) ?? textProblem(value);
        if (p) throw badInput(`body.${clip(name)}: ${p}`);
      }
    }
  }
}

/** The edge check, with the server's body limit (the same one the API guard enforces). */
export function inputGuard(bodyLimitBytes: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    checkUrl(c.req.url);
    if (BODY_METHODS.has(c.req.method)) await checkBody(c, bodyLimitBytes);
    await next();
  };
}

const guards = new WeakMap<object, MiddlewareHandler<AppEnv>>();

/** One guard per app (routes and pages share it). */
export function inputGuardFor(api: { app: object; deps: { config: { bodyLimitBytes: number } } }): MiddlewareHandler<AppEnv> {
  let g = guards.get(api.app);
  if (!g) guards.set(api.app, (g = inputGuard(api.deps.config.bodyLimitBytes)));
  return g;
}
