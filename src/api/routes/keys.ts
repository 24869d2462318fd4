import { createRoute, z } from '@hono/zod-openapi';
import { Fields } from '../../domain/fields.ts';
import { createKey, KEY_SCOPES, listKeys, revokeKey } from '../../services/keys.ts';
import { respondList } from '../csv.ts';
import { defineRoute, type Api } from '../define-route.ts';
import { CREATE_KEY_EXAMPLE } from '../examples/request-examples.ts';
import { bodyResponses, errorResponses, jsonOrCsvResponse, notFoundResponse, pageOf } from '../schemas.ts';

const KeyInfoSchema = z
  .object({
    prefix: z.string(),
    name: z.string(),
    scopes: z.array(z.enum(KEY_SCOPES)),
    createdAt: z.string(),
    revokedAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
  })
  .openapi('ApiKey');

const CreateKeyBody = z
  .object({ scopes: z.array(z.enum(KEY_SCOPES)).min(1).max(KEY_SCOPES.length * 4), name: Fields.keyName.optional() })
  .strict()
  .openapi('CreateKey');

export function registerKeys(api: Api): void {
  defineRoute(api, {
    scope: 'admin',
    route: createRoute({
      method: 'get',
      path: '/api/keys',
      operationId: 'listKeys',
      tags: ['keys'],
      summary: 'List API keys (prefixes and metadata; never the keys)',
      responses: {
        200: jsonOrCsvResponse('Every key (one page: total is the number of keys)', pageOf('ApiKeyPage', KeyInfoSchema)),
        ...errorResponses,
      },
    }),
    handler: async (c) => {
      const items = await listKeys(api.deps.database);
      return respondList(c, { items, total: items.length, limit: items.length, offset: 0 });
    },
  });

  defineRoute(api, {
    scope: 'admin',
    route: createRoute({
      method: 'post',
      path: '/api/keys',
      operationId: 'createKey',
      tags: ['keys'],
      summary: 'Create an API key; the response is the only time the key is shown',
      request: { body: { required: true, content: { 'application/json': { schema: CreateKeyBody, example: CREATE_KEY_EXAMPLE } } } },
      responses: {
        201: { description: 'Created', content: { 'application/json': { schema: KeyInfoSchema.extend({ key: z.string().openapi({ description: 'The key itself: shown only in this response' }) }).openapi('CreatedApiKey') } } },
        ...errorResponses,
        ...bodyResponses,
      },
    }),
    handler: async (c) => {
      const body = c.req.valid('json');
      return c.json(await createKey(api.deps.database, { scopes: body.scopes, name: body.name }), 201);
    },
  });

  defineRoute(api, {
    scope: 'admin',
    route: createRoute({
      method: 'delete',
      path: '/api/keys/{prefix}',
      operationId: 'revokeKey',
      tags: ['keys'],
      summary: 'Revoke a key by prefix (its requests get 401 from now on)',
      request: { params: z.object({ prefix: z.string().regex(/^[0-9a-f]{8}$/, 'a key prefix is 8 hex digits') }) },
      responses: {
        200: { description: 'Revoked', content: { 'application/json': { schema: KeyInfoSchema } } },
        ...errorResponses,
        ...notFoundResponse,
      },
    }),
    handler: async (c) => c.json(await revokeKey(api.deps.database, c.req.valid('param').prefix), 200),
  });
}
