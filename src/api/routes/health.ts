import { createRoute, z } from '@hono/zod-openapi';
import { defineRoute, type Api } from '../define-route.ts';

const HealthSchema = z.object({ status: z.literal('ok'), database: z.enum(['pglite', 'postgres']) }).openapi('Health');

export function registerHealth(api: Api): void {
  defineRoute(api, {
    scope: 'public',
    route: createRoute({
      method: 'get',
      path: '/health',
      tags: ['meta'],
      summary: 'Liveness and database check',
      responses: { 200: { description: 'Up', content: { 'application/json': { schema: HealthSchema } } } },
    }),
    handler: async (c) => {
      await api.deps.database.execute('select 1');
      return c.json({ status: 'ok' as const, database: api.deps.database.kind }, 200);
    },
  });
}
