import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { AssayError, badInput, type ErrorCode } from '../domain/errors.ts';
import { explainIssue } from '../domain/issues.ts';
import { isUniqueViolation } from '../services/db-errors.ts';

/** The one error envelope of the API: {"error":{"code","message"}}. */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string };
}

export const STATUS_OF: Readonly<Record<ErrorCode, ContentfulStatusCode>> = {
  bad_input: 400,
  not_found: 404,
  unauthorized: 401,
  forbidden: 403,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/** HTTP statuses raised by hono itself (malformed JSON, wrong media type...) mapped onto our codes. */
const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'bad_input',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'bad_input',
  429: 'rate_limited',
  503: 'unavailable',
};

export function envelope(c: Context, code: ErrorCode, message: string, status?: ContentfulStatusCode, headers?: Record<string, string>): Response {
  return c.json({ error: { code, message } } satisfies ErrorEnvelope, status ?? STATUS_OF[code], headers);
}

/** Extra response headers an error carries (Retry-After on 429). */
export class RateLimitedError extends AssayError {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** app.onError: every failure leaves as the envelope; internal errors never expose a stack. */
export function onError(err: Error, c: Context, log: (line: string) => void = (l) => process.stderr.write(l + '\n')): Response {
  if (err instanceof RateLimitedError) {
    return envelope(c, 'rate_limited', err.message, 429, { 'Retry-After': String(err.retryAfterSeconds) });
  }
  if (err instanceof AssayError && err.code !== 'internal') return envelope(c, err.code, err.message);
  if (err instanceof HTTPException) {
    const code = CODE_OF_STATUS[err.status] ?? 'internal';
    const status = (code === 'internal' ? 500 : err.status) as ContentfulStatusCode;
    const message = err.message || (err.status === 413 ? 'request body too large' : `HTTP ${err.status}`);
    return envelope(c, code, err.status === 400 && /json/i.test(message) ? `body: ${message}` : message, status);
  }
  if (isAbortedBody(err)) {
    // The client hung up (or broke the chunked framing) mid-body: nobody is left to read a reply, and it
    // is not our failure. Answered as bad input so nothing is logged as an internal error.
    return envelope(c, 'bad_input', 'body: the request body was cut off before it ended', 400);
  }
  if (isUniqueViolation(err)) {
    return envelope(c, 'conflict', 'a concurrent request changed the same record; retry the request', 409);
  }
  // Log the detail server-side only (method + path, never headers: they carry the key).
  log(`internal error on ${c.req.method} ${c.req.path}: ${err?.stack ?? String(err)}`);
  return envelope(c, 'internal', 'internal error', 500);
}

/** Node's error for a request body whose connection closed (or failed to parse) before its end. */
export const isAbortedBody = (err: unknown): boolean => {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === 'ECONNRESET' && e.message === 'aborted';
};

const TARGET_NAMES: Readonly<Record<string, string>> = { json: 'body', query: 'query', param: 'path', header: 'header', form: 'body' };

/** "body.items[0].id: expected string, received number" — the first few issues, each with its path. */
export function describeZodError(error: ZodError, target: string): string {
  const where = TARGET_NAMES[target] ?? target;
  const parts = error.issues.slice(0, 3).map((issue) => {
    const i = explainIssue(issue);
    const path = i.path
      .map((p, k) => (typeof p === 'number' ? `[${p}]` : k === 0 ? String(p) : `.${String(p)}`))
      .join('');
    return `${where}${path ? (path.startsWith('[') ? path : `.${path}`) : ''}: ${i.message}`;
  });
  const more = error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : '';
  return parts.join('; ') + more;
}

/** OpenAPIHono defaultHook: a validation failure becomes bad_input naming the field. */
export function validationHook(result: { success: boolean; error?: unknown; target: string }): void {
  if (!result.success) throw badInput(describeZodError(result.error as ZodError, result.target));
}
