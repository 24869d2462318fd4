import { z } from '@hono/zod-openapi';

/** Schemas and OpenAPI response entries shared by the route files: pagination, JSON bodies, the error envelope. */

/** Query parameters shared by every list endpoint. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50).openapi({ description: 'Page size (1–1000, default 50).' }),
  offset: z.coerce.number().int().min(0).default(0).openapi({ description: 'Rows to skip.' }),
});

export const ErrorSchema = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .openapi('Error');

/**
 * A JSON response documented by its description only: the body is a service's view (its shape is
 * documented in prose and tested), so the spec does not restate it as a schema.
 */
export const jsonResponse = (description: string) => ({ description, content: { 'application/json': { schema: z.any() } } });

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });

/** The error responses every guarded route can produce. */
export const errorResponses = {
  400: errorResponse('Bad input (the message names the field or line)'),
  401: errorResponse('Missing, unknown or revoked key'),
  403: errorResponse('The key lacks the scope'),
  429: errorResponse('Rate limited (see Retry-After)'),
} as const;
export const notFoundResponse = { 404: errorResponse('No such resource') } as const;
export const tooLargeResponse = { 413: errorResponse('Request body over the limit') } as const;
