import type { Context } from 'hono';
import { badInput } from '../domain/errors.ts';

/** Media types accepted for JSON Lines uploads. */
export const JSONL_TYPES = ['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines', 'text/plain'] as const;

/**
 * The raw text of a JSONL upload. Read after the guard, so the body limit counts every byte, whether
 * the client sent Content-Length or a chunked stream.
 */
export async function jsonlBody(c: Context): Promise<string> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== '' && !(JSONL_TYPES as readonly string[]).includes(type)) {
    throw badInput(`body: send JSON Lines as ${JSONL_TYPES[0]} (got ${type})`);
  }
  const text = await c.req.text();
  if (text.trim() === '') throw badInput('body: empty (expected one JSON object per line)');
  return text;
}

/** A JSON Lines request body; `example` is the text of an upload (src/api/examples/request-examples.ts). */
export const jsonlRequestBody = (description: string, example: string) => ({
  required: true,
  description,
  content: Object.fromEntries(JSONL_TYPES.slice(0, 2).map((t) => [t, { schema: { type: 'string' as const }, example }])),
});
