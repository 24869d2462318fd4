import { z } from '@hono/zod-openapi';
import type { ErrorCode } from '../domain/errors.ts';
import { readDecimal } from '../domain/limit-values.ts';
import { int4 } from '../domain/limits.ts';
import { STATUS_OF } from './errors.ts';

/**
 * Schemas and OpenAPI response entries shared by the route files: pagination, JSON bodies, the error
 * envelope. The schemas of what each route returns live beside them (src/api/*-schema.ts).
 */

/**
 * A number in a query string, read as the report pages read it (src/web/pages/report-page.ts numberIn):
 * trimmed; blank (a cleared form field, spaces) is not given, so `fallback` (or absent); otherwise the one
 * rule of domain/limit-values.ts readDecimal (a plain decimal; digits only when `range` is whole), then
 * `range`. z.coerce.number() would read '' and '  ' as 0 and take '0x10' as 16 and '1e1' as 10.
 */
export function queryNumber<F extends number | undefined = undefined>(range: z.ZodNumber, fallback?: F) {
  const read = (v: unknown, ctx: { addIssue: (i: { code: 'custom'; message: string; input: unknown }) => void }) => {
    if (typeof v !== 'string') return v;
    const t = v.trim();
    if (t === '') return undefined;
    const n = readDecimal(t, { integer: range.isInt });
    if (typeof n === 'number') return n;
    const shown = t.length > 40 ? `${t.slice(0, 40)}…` : t;
    const what = n === 'not-decimal' ? 'a plain decimal number' : n === 'not-whole' ? 'a whole number written in digits' : `a whole number of at most ${Number.MAX_SAFE_INTEGER}`;
    ctx.addIssue({ code: 'custom', message: `must be ${what}, got '${shown}'`, input: v });
    return z.NEVER;
  };
  const inner = fallback === undefined ? range.optional() : range.default(fallback);
  // With a fallback the field is always a number; without, absent when not given.
  return z.preprocess(read, inner as F extends number ? z.ZodDefault<z.ZodNumber> : z.ZodOptional<z.ZodNumber>);
}

/** A bootstrap seed in a query string: 0–4294967295, as `assay calibrate --seed` and the other seeded commands. */
export const querySeed = (fallback: number) => queryNumber(z.number().int().min(0).max(2 ** 32 - 1), fallback);

/** A page size in a query string: 1–1000. */
export const queryLimit = (fallback: number) => queryNumber(z.number().int().min(1).max(1000), fallback);

/** Query parameters shared by every list endpoint. */
export const PageQuery = z.object({
  limit: queryLimit(50).openapi({ description: 'Page size (1–1000, default 50).' }),
  // An offset is a count of rows, so in the int4 range as on the pages (src/web/pages/report-page.ts).
  offset: queryNumber(int4(0), 0).openapi({ description: 'Rows to skip.' }),
});

const ERROR_CODES = Object.keys(STATUS_OF) as [ErrorCode, ...ErrorCode[]];

export const ErrorSchema = z
  .object({ error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }) })
  .openapi('Error', { description: 'The one error envelope: a domain code (its HTTP status is fixed per code) and a message naming the field or line' });

/** A point in time as JSON has it: an ISO 8601 string (the services' Dates, serialised). */
export const Timestamp = z.string().openapi({ format: 'date-time', description: 'ISO 8601' });

/** One page of a list endpoint: the items and where they sit in the whole list. */
export const pageOf = <T extends z.ZodType>(name: string, item: T) =>
  z
    .object({
      items: z.array(item),
      total: z.number().int().openapi({ description: 'Rows matching the filters, over all pages' }),
      limit: z.number().int(),
      offset: z.number().int(),
    })
    .openapi(name);

/** A JSON response and its schema: every response names the schema of what the service returns. */
export const jsonResponse = <T extends z.ZodType>(description: string, schema: T) => ({ description, content: { 'application/json': { schema } } });

/** A JSON response with an example: the real answer to the route's request example (test/api/openapi-examples.test.ts). */
export const withExample = <T extends z.ZodType>(r: { description: string; content: { 'application/json': { schema: T } } }, example: unknown) => ({
  ...r,
  content: { 'application/json': { ...r.content['application/json'], example } },
});

const CsvSchema = z.string().openapi('Csv', {
  description: 'RFC 4180 CSV (Accept: text/csv): a header row, then one row per item; nested values as JSON, null as an empty field',
});

/** A list or table that also answers CSV (Accept: text/csv; src/api/csv.ts): the JSON schema and the CSV text. */
export const jsonOrCsvResponse = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema }, 'text/csv': { schema: CsvSchema } },
});

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });

/** The error responses every guarded route can produce. */
export const errorResponses = {
  400: errorResponse('Bad input (the message names the field or line)'),
  401: errorResponse('Missing, unknown or revoked key'),
  403: errorResponse('The key lacks the scope'),
  429: errorResponse('Rate limited (see Retry-After)'),
  500: errorResponse('Internal error (logged by the server; the message says no more)'),
} as const;
/** A refused body and the envelope the route answers for it, both from a real call (test/api/openapi-examples.test.ts sends it again). */
export interface BadInputExample {
  summary: string;
  request: unknown;
  response: { error: { code: 'bad_input'; message: string } };
}
/** The 400 entry of errorResponses with an example of the envelope; its description holds the body that got it, as JSON in backticks. */
export const badInputResponse = (e: BadInputExample) => ({
  400: {
    ...errorResponses[400],
    content: { 'application/json': { schema: ErrorSchema, examples: { badInput: { summary: e.summary, description: `The answer to the body \`${JSON.stringify(e.request)}\``, value: e.response } } } },
  },
});
export const notFoundResponse = { 404: errorResponse('No such resource') } as const;
/** A list or report whose filter value names nothing (services/filter-values.ts): never an empty list for a typo. */
export const unknownFilterResponse = {
  404: errorResponse("A filter names nothing (an unknown run, model, rubric, puzzle, judge, annotator, tag or answer): the message starts with the parameter and quotes its value, e.g. `judge 'lexicl' not found: …`"),
} as const;
export const tooLargeResponse = { 413: errorResponse('Request body over the limit') } as const;
/** What any route that reads a body can answer besides: too large, or not of the media type the route takes. */
export const bodyResponses = {
  ...tooLargeResponse,
  415: errorResponse('The body is not of the media type the route takes (Content-Type)'),
} as const;
